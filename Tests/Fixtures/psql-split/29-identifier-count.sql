create /* c */ function ic() returns int language sql begin atomic select 1; end;
create or /* x */ replace function ic() returns int language sql begin atomic select 2; end;
select 1;
