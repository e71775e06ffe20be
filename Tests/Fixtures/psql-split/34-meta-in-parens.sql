select (1
\echo in parens
);
select 2;
