select 'a'
'b';
select 'a' 'b;';
select 'x'
-- comment
'y';
