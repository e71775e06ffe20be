select 1 +-- comment
2;
select 2 */* comment; */ 3;
select 4 @-- x
5;
select '{"a":1}'::jsonb ?| array['a'], 5 <> 6, 7 != 8;
select 1 /*/ not closed; */;
select 1::int, 2 ::text;
