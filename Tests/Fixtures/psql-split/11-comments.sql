-- a comment; with a semicolon
select 1; -- trailing; comment
select /* inline; */ 2;
select /* nested /* deeper; */ still; */ 3;
/* leading
   comment; */ select 4;
select 5 -- comment before the end
;
select 6 /* open
; */ + 1;
