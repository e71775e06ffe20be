create function h(x int) returns text language sql
begin atomic
  select case when x > 0 then 'pos' else 'neg' end;
  select case x when 1 then 'one' end;
end;
select h(1);
create function h2(x int) returns text language sql return case when x > 0 then 'a' else 'b' end;
select h2(2);
