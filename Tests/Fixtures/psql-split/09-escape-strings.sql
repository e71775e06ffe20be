select E'\'';
select E'\\\'; still';
select E'\x27; still';
select E'\047'';';
select E'\u0027;';
select E'a' 'b;';
select x'a' as e, 1;
select 1 e'';
