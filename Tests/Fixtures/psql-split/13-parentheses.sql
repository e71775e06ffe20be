create table r (a int);
create rule q as on insert to r do also (select 1; select 2);
select (1
;
2);
select ((1)); select (2));
select 3;
