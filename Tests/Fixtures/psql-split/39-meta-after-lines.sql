select 1

\g
select 2
   \g
select 3 -- c
\g
select 4 \r
select 5;
