select 1.5e3; select .5; select 1..2;
select 1e+; select 3;
select 0x1f;
select 1e5x;
