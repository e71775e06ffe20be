select 'été;';
select "naïve;" from (select 1 as "naïve;") s;
create function ü() returns int language sql begin atomic select 1; end;
select $ü$;$ü$;
