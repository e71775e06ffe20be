select 1; /* after one */
select 2;
/* alone */

   
-- dash
select 3;
select 4; /* c */ select 5;
/* a */ /* b */
/* open
; still */ select 6;
/* nested /* inner */
still; */
select 7;
