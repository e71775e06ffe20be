create function e1() returns int language sql begin atomic select 1 as "end"; end;
create function e2() returns int language sql begin atomic select 1 as end_x; end;
select 1;
