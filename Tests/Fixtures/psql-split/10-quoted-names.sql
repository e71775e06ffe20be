create table "a;b" ("c;""d" int);
select "c;""d" from "a;b";
select U&"\0061;" from (select 1 as "a;") s;
select 1 as "--not a comment";
select 1 as "/*";
