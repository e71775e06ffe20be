select 1; select
2;
select 'a;' ; select 'b
;c';
select 3; /* open comment
; */ select 4;
select 5; select (6
;
7);
