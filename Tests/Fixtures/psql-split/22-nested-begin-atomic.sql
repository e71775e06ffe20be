create function n1() returns int language sql
begin atomic
  select 1;
  select case when true then (select 2) end;
end;
create function n2() returns setof int language sql begin atomic select a from (select 1 as a) s where a in (select 1); end;
select 1;
