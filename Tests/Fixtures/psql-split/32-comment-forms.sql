select 1 /* a */ /* b /* c */ */ ;
select 2 -- x /* not a comment start
;
select 3 /* -- */ ;
select '--' as a, '/*' as b;
