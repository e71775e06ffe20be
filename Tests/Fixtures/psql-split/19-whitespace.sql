   select 1;
	select	2	;
select
3
;
;
;; select 4;
select 5;select 6;
