select $q$ $junk$q$ ; $q$;
select $$ $$ $ ;
select a$$b from (select 1 as "a$$b") s;
select 1 as x$;
select $a$ $a $a$;
