create function ba1() returns text language sql
begin atomic
  -- a comment; with a semicolon, and end;
  select 'end;' || 'x'; /* end; */
  select case when (select true) then 'y' end;
end;
select ba1();
create function ba2() returns int language sql begin atomic select (case when true then 1 end); end; select 2;
create function ba3() returns int language sql begin atomic select 1 as "begin"; select 2 as "case"; end; select 3;
