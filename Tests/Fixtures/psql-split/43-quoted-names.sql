select 1 as "a""b;";
select 1 as U&"x;\0061";
select 1 as "
;";
select 1 as "";
