begin;
select 1;
end;
begin; select 2; commit;
create table b (begin_at int, "end" int);
create view v as select case when 1 = 1 then 1 end as c;
do $$ begin perform 1; end $$;
