select 1\; select 2;
select 3 \; select 4 \; select 5;
select '\;' ;
create function bs() returns int language sql begin atomic select 1\; end;
