select $$a;b$$;
select $tag$ ; $$ ; $tag$;
select $a$ $b$ ; $b$ ; $a$;
select $1x$ ;
select 'x' as a$b, $$;$$;
create function d() returns int as $body$ begin return 1; end; $body$ language plpgsql;
select $_$;$_$, $é$;$é$;
