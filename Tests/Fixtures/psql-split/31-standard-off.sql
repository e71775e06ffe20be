-- standard_conforming_strings: off
select 'it\'s; here';
select 'back\\'; select 2;
select E'\''; select 3;
select U&'\'; select 4;
select b'\'; select 5;
select $$\'$$; select 6;
