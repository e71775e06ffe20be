create or replace function g(x int) returns int
language sql
begin atomic
  select x + 1;
  select x + 2;
end;
select g(1);
create procedure p() language sql begin atomic insert into t values (1); insert into t values (2); end; select 3;
CREATE OR REPLACE PROCEDURE p2() LANGUAGE sql
BEGIN ATOMIC
  INSERT INTO t VALUES (3);
END;
