create function k(begin int) returns int language sql begin atomic select 1; end;
create function k2("begin" int, "case" int) returns int language sql begin atomic select 1; end;
create function k3() returns int language sql begin atomic select (select 1 where (case when true then true end)); end;
select 1;
