create function co(x int) returns int language sql return case when x > 0 then 1 end;
select co(1);
create function co2(x int) returns int language sql begin atomic select case when x > 0 then 1 end; end;
select co2(1);
