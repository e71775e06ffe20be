create table c (a int);
begin;
create index ci on c (a);
end;
create or replace view cv as select 1 as begin;
create or replace view cv2 as select case when true then 1 end as x;
select 2;
