select 1;;
/* only a comment */;
select 2; -- trailing; comment
select 3;
