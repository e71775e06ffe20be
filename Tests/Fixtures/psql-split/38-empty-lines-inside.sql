select (1

);
create function el() returns int language sql
begin atomic

  select 1;

end;
select 'a

b';
select $$x

y$$;
select /* c

d */ 1;
select 1 as "a

b";
select 'x'

'y';
