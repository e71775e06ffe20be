select E'a\'
;b';
select E'\\';
select e'\\\\'; select 2;
select 'a\'; select 3;
select E'\
;'; select 4;
