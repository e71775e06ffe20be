#!/usr/bin/env python3
"""DuckDB's side of the file rows in bench/run.sh (the duckdb Python module, all cores).

usage: duck.py filter FILE OUT     records with address.country = 'DE', as JSON lines to OUT
       duck.py group FILE OUT      count per address.country, as JSON lines to OUT
       duck.py summarize FILE      SUMMARIZE of the file, printed
       duck.py version             the module's version and thread count

Every query reads FILE with read_json_auto, as a user of DuckDB would.
"""
import sys

import duckdb


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    con = duckdb.connect()
    if mode == "version":
        threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
        print(f"{duckdb.__version__} ({threads} threads)")
        return
    src = "read_json_auto('" + sys.argv[2].replace("'", "''") + "')"
    if mode in ("filter", "group"):
        out = sys.argv[3].replace("'", "''")
        if mode == "filter":
            query = f"SELECT * FROM {src} WHERE address.country = 'DE'"
        else:
            query = f"SELECT address.country AS country, count(*) AS count FROM {src} GROUP BY 1 ORDER BY 1"
        con.execute(f"COPY ({query}) TO '{out}' (FORMAT JSON)")
    elif mode == "summarize":
        for row in con.execute(f"SUMMARIZE SELECT * FROM {src}").fetchall():
            print(row)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
