select :{?x} as a;
select :{?} as b;
select :{x} as c;
select :'x y' as d;
select :"x"y as e;
select 1 as :x;
