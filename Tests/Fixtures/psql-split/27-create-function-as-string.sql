create function s1() returns int language sql as 'select 1; select 2';
create function s2() returns int language sql as $$ select 1; $$;
create or replace function s3() returns int language plpgsql as $f$
begin
  return 1;
end;
$f$;
select s1(), s2(), s3();
