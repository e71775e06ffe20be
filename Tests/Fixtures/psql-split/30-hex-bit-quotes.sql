select x'41''' as a; select 1;
select b'10''' ; select 2;
select e'a''b;'; select 3;
