select :undefined;
select :'undefined';
select :"undefined";
select :'a;b' as x;
select 1::text, :{?undefined};
select a:=1;
