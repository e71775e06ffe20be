select 1
\echo between
;
select 2 \echo on the line
+ 3;
\echo alone
select 4;
