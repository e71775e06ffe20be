select 'create function' as x; select 1;
comment on table t is 'begin; end';
explain select 1; select 2;
create temp table tt (a int); begin; insert into tt values (1); end;
