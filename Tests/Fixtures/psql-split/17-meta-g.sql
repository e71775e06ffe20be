select 1 \g
select 2
\g
select 3;
select 4 \r
select 5;
select 6
\r
select 7;
