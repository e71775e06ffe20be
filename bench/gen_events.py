#!/usr/bin/env python3
"""Deterministic event-like records (GitHub-style events), one JSON object per line.

usage: gen_events.py N [--seed S] [--out FILE]      (default: standard output)

The shapes that real event logs have and that a flat table does not:
  - payload's shape depends on type: PushEvent (about half) has size, distinct_size, ref and
    commits, an array of 0 to 20 objects {sha, author: {name, email}, message, distinct},
    skewed towards 1; IssuesEvent and IssueCommentEvent have issue: {number, title, state,
    labels (an array of strings), comments, body (null in about a third), user}; PullRequestEvent
    has pull_request with labels as an array of objects; WatchEvent only {action}; PublicEvent {};
    CreateEvent, DeleteEvent, ForkEvent, ReleaseEvent, PullRequestReviewEvent, GollumEvent.
  - org is missing from about 28% of records; payload.ref is null in some CreateEvents.
  - keys whose type changes between records: payload.size is an integer, but a string of digits
    in about 2% of PushEvents ("7"), spread over the whole file; payload.size may exceed the
    length of commits (commits stops at 20, as GitHub's does).
  - repo.name has a Zipf-like skew over 120,000 repositories (tens of thousands distinct in 1M
    records), so that a top 10 is meaningful; actor.login likewise over 300,000 actors, with bots.
About 700 bytes a record on average. The same N and seed always give the same bytes.
"""
import bisect
import itertools
import json
import random
import sys

WORDS = ["atlas", "beacon", "cobalt", "delta", "ember", "falcon", "garnet", "harbor", "iris",
         "juniper", "kestrel", "lumen", "meridian", "nimbus", "onyx", "pulsar", "quartz", "raven",
         "sierra", "tundra", "umbra", "vertex", "willow", "xenon", "yarrow", "zephyr", "core",
         "cli", "sdk", "api", "server", "client", "docs", "utils", "kit", "engine", "ui", "db",
         "rs", "js", "py", "go", "swift", "web", "app", "lab", "hub", "flow"]
OWNERS = ["acme", "apache", "contoso", "initech", "globex", "umbrella", "hooli", "vandelay",
          "stark", "wayne", "tyrell", "cyberdyne", "soylent", "wonka", "aperture", "blackmesa",
          "oscorp", "gringotts", "monarch", "nakatomi"]
FIRST = ["ana", "ben", "chen", "dara", "eli", "fatima", "gus", "hana", "ivan", "jun", "kofi",
         "lena", "mo", "nia", "omar", "priya", "quinn", "rosa", "sam", "tomas", "uma", "vik",
         "wen", "ximena", "yusuf", "zoe"]
NAMES = ["Ana Lima", "Ben Okafor", "Chen Wei", "Dara Ní Bhriain", "Eli Cohen", "Fatima Zahra",
         "Gus Müller", "Hana Sato", "Ivan Petrov", "Jun Park", "Kofi Mensah", "Lena Berg",
         "Mo Salah", "Nia Long", "Omar Haddad", "Priya Nair", "Quinn O'Neil", "Rosa Díaz",
         "Sam \"Sparky\" Reed", "Tomás Ruiz"]
VERBS = ["fix", "add", "update", "remove", "refactor", "bump", "merge", "revert", "improve", "docs:"]
THINGS = ["parser", "tests", "README", "CI config", "dependencies", "login flow", "cache",
          "error handling", "build script", "the API", "typos", "release notes", "benchmarks"]
LABELS = ["bug", "enhancement", "documentation", "question", "good first issue", "help wanted",
          "wontfix", "duplicate", "performance", "security"]
COLORS = ["d73a4a", "a2eeef", "0075ca", "d876e3", "7057ff", "008672", "ffffff", "cfd3d7"]
BOTS = ["dependabot[bot]", "github-actions[bot]", "renovate[bot]", "pre-commit-ci[bot]"]

TYPES = [("PushEvent", 48), ("CreateEvent", 12), ("WatchEvent", 9), ("PullRequestEvent", 8),
         ("IssueCommentEvent", 6), ("IssuesEvent", 4), ("DeleteEvent", 3), ("ForkEvent", 3),
         ("PullRequestReviewEvent", 3), ("ReleaseEvent", 1.5), ("GollumEvent", 1), ("PublicEvent", 0.5),
         ("MemberEvent", 1)]
TYPE_NAMES = [t for t, _ in TYPES]
TYPE_CUM = list(itertools.accumulate(w for _, w in TYPES))

N_REPOS = 120_000
N_ACTORS = 300_000
N_ORGS = 4_000
START = 1_709_251_200  # 2024-03-01T00:00:00Z


def zipf_cum(n, s):
    return list(itertools.accumulate(1.0 / (r ** s) for r in range(1, n + 1)))


class Pick:
    """Zipf-like ranks: the same rank always names the same thing."""

    def __init__(self, n, s):
        self.cum = zipf_cum(n, s)
        self.total = self.cum[-1]

    def __call__(self, rnd):
        return bisect.bisect_left(self.cum, rnd.random() * self.total)


def repo_names(n):
    """Unique names by rank: the most active under the well-known owners, the tail numbered."""
    r = random.Random(7919)
    names, seen = [], set()
    while len(names) < n:
        rank = len(names)
        owner = r.choice(OWNERS) if rank < 200 else "%s%d" % (r.choice(FIRST), rank % 9973)
        name = "%s/%s-%s%s" % (owner, r.choice(WORDS), r.choice(WORDS), "" if rank < 2000 else "-%d" % rank)
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def login(rank):
    if rank < len(BOTS):
        return BOTS[rank]
    r = random.Random(rank * 104729 + 3)
    return "%s%s%d" % (r.choice(FIRST), r.choice(["", "-", "_", "dev", "x"]), rank)


def sha(rnd):
    return "%040x" % rnd.getrandbits(160)


def stamp(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def message(rnd):
    m = "%s %s" % (rnd.choice(VERBS), rnd.choice(THINGS))
    if rnd.random() < 0.3:
        m += "\n\nCloses #%d" % rnd.randrange(1, 5000)
    return m


def user(rnd, pick_actor):
    a = pick_actor(rnd)
    return {"login": login(a), "id": 1000 + a}


def commits_count(rnd):
    x = rnd.random()
    if x < 0.05:
        return 0
    if x < 0.65:
        return 1
    if x < 0.80:
        return 2
    if x < 0.97:
        return rnd.randrange(3, 10)
    return rnd.randrange(10, 60)  # more than 20: the payload keeps 20, size says how many


def issue(rnd, pick_actor, state=None):
    labels = rnd.sample(LABELS, min(len(LABELS), int(rnd.expovariate(1.2))))
    return {
        "id": rnd.randrange(10**8, 3 * 10**9),
        "number": rnd.randrange(1, 40000),
        "title": "%s %s" % (rnd.choice(VERBS).rstrip(":").capitalize(), rnd.choice(THINGS)),
        "state": state or rnd.choice(["open", "open", "closed"]),
        "labels": labels,
        "comments": int(rnd.expovariate(0.25)),
        "body": None if rnd.random() < 0.33 else "Steps to reproduce:\n1. %s\n2. see error" % message(rnd),
        "user": user(rnd, pick_actor),
    }


def payload(kind, rnd, pick_actor, repo_rank, pushed_by):
    if kind == "PushEvent":
        n = commits_count(rnd)
        commits = []
        for _ in range(min(n, 20)):
            author = rnd.choice(NAMES)
            commits.append({
                "sha": sha(rnd),
                "author": {"email": author.split()[0].lower().strip('"') + "@example.com", "name": author},
                "message": message(rnd),
                "distinct": rnd.random() < 0.9,
            })
        distinct = sum(1 for c in commits if c["distinct"])
        size = n if rnd.random() >= 0.02 else str(n)  # the type change
        return {"repository_id": 10**6 + repo_rank, "push_id": rnd.randrange(10**10, 2 * 10**10),
                "size": size, "distinct_size": distinct,
                "ref": "refs/heads/" + rnd.choice(["main", "main", "main", "master", "develop", "gh-pages",
                                                   "feature/%s" % rnd.choice(WORDS)]),
                "head": sha(rnd), "before": sha(rnd), "commits": commits}
    if kind == "CreateEvent":
        ref_type = rnd.choice(["branch", "branch", "tag", "repository"])
        ref = None if ref_type == "repository" else (
            "v%d.%d.%d" % (rnd.randrange(5), rnd.randrange(20), rnd.randrange(10)) if ref_type == "tag"
            else "feature/%s" % rnd.choice(WORDS))
        return {"ref": ref, "ref_type": ref_type, "master_branch": rnd.choice(["main", "master"]),
                "description": None if rnd.random() < 0.4 else "A %s for %s" % (rnd.choice(WORDS), rnd.choice(THINGS)),
                "pusher_type": "user"}
    if kind == "WatchEvent":
        return {"action": "started"}
    if kind == "PullRequestEvent":
        number = rnd.randrange(1, 30000)
        merged = rnd.random() < 0.5
        return {
            "action": rnd.choice(["opened", "closed", "closed", "reopened", "synchronize"]),
            "number": number,
            "pull_request": {
                "id": rnd.randrange(10**9, 2 * 10**9), "number": number,
                "state": "closed" if merged else rnd.choice(["open", "closed"]),
                "title": message(rnd).split("\n")[0], "user": user(rnd, pick_actor),
                "body": None if rnd.random() < 0.25 else message(rnd),
                "merged": merged, "draft": rnd.random() < 0.1,
                "comments": int(rnd.expovariate(0.3)), "commits": 1 + int(rnd.expovariate(0.3)),
                "additions": int(rnd.expovariate(1 / 300)), "deletions": int(rnd.expovariate(1 / 120)),
                "changed_files": 1 + int(rnd.expovariate(0.2)),
                "labels": [{"name": l, "color": rnd.choice(COLORS)}
                           for l in rnd.sample(LABELS, int(rnd.expovariate(1.5)) % 4)],
                "base": {"ref": rnd.choice(["main", "master", "develop"])},
                "head": {"ref": "feature/%s" % rnd.choice(WORDS)},
            },
        }
    if kind == "IssuesEvent":
        action = rnd.choice(["opened", "opened", "closed", "reopened", "labeled"])
        return {"action": action, "issue": issue(rnd, pick_actor, "closed" if action == "closed" else None)}
    if kind == "IssueCommentEvent":
        return {"action": "created", "issue": issue(rnd, pick_actor),
                "comment": {"id": rnd.randrange(10**9, 3 * 10**9), "user": user(rnd, pick_actor),
                            "body": rnd.choice(["LGTM", "Thanks!", "Can you rebase?", "+1", message(rnd)])}}
    if kind == "DeleteEvent":
        return {"ref": "feature/%s" % rnd.choice(WORDS), "ref_type": rnd.choice(["branch", "tag"]),
                "pusher_type": "user"}
    if kind == "ForkEvent":
        return {"forkee": {"id": rnd.randrange(10**8, 9 * 10**8), "full_name": "%s/fork" % login(pushed_by),
                           "owner": {"login": login(pushed_by)}, "fork": True,
                           "stargazers_count": int(rnd.expovariate(0.5))}}
    if kind == "PullRequestReviewEvent":
        return {"action": "created",
                "review": {"id": rnd.randrange(10**9, 2 * 10**9),
                           "state": rnd.choice(["approved", "commented", "changes_requested"]),
                           "body": None if rnd.random() < 0.6 else "Looks good"},
                "pull_request": {"number": rnd.randrange(1, 30000), "title": message(rnd).split("\n")[0]}}
    if kind == "ReleaseEvent":
        return {"action": "published",
                "release": {"tag_name": "v%d.%d.0" % (rnd.randrange(5), rnd.randrange(30)),
                            "prerelease": rnd.random() < 0.2, "draft": False,
                            "assets": [{"name": "build-%d.tar.gz" % i, "size": rnd.randrange(10**4, 10**8),
                                        "download_count": int(rnd.expovariate(0.01))}
                                       for i in range(rnd.randrange(4))]}}
    if kind == "GollumEvent":
        return {"pages": [{"page_name": rnd.choice(WORDS).capitalize(), "action": rnd.choice(["created", "edited"]),
                           "sha": sha(rnd)} for _ in range(1 + int(rnd.expovariate(2)))]}
    if kind == "MemberEvent":
        return {"action": "added", "member": user(rnd, pick_actor)}
    return {}  # PublicEvent


def records(n, seed):
    rnd = random.Random(seed)
    pick_repo = Pick(N_REPOS, 1.0)
    pick_actor = Pick(N_ACTORS, 0.9)
    names = repo_names(N_REPOS)
    t = START
    for i in range(n):
        t += rnd.randrange(0, 3)
        kind = TYPE_NAMES[bisect.bisect_left(TYPE_CUM, rnd.random() * TYPE_CUM[-1])]
        repo = pick_repo(rnd)
        actor = pick_actor(rnd)
        name = names[repo]
        rec = {
            "id": str(30_000_000_000 + i),
            "type": kind,
            "actor": {"id": 1000 + actor, "login": login(actor)},
            "repo": {"id": 10**6 + repo, "name": name, "url": "https://api.example.com/repos/" + name},
            "payload": payload(kind, rnd, pick_actor, repo, actor),
            "public": kind != "MemberEvent" or rnd.random() < 0.5,
            "created_at": stamp(t),
        }
        if rnd.random() >= 0.28:
            org = rnd.randrange(N_ORGS) if rnd.random() < 0.5 else repo % N_ORGS
            rec["org"] = {"id": 5000 + org, "login": OWNERS[org] if org < len(OWNERS) else "org%d" % org,
                          "url": "https://api.example.com/orgs/o%d" % org}
        yield rec


def main(argv):
    if not argv or not argv[0].isdigit():
        sys.exit(__doc__)
    n = int(argv[0])
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 42
    out = open(argv[argv.index("--out") + 1], "w", encoding="utf-8") if "--out" in argv else sys.stdout
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    buf = []
    for rec in records(n, seed):
        buf.append(dumps(rec))
        if len(buf) == 1000:
            out.write("\n".join(buf) + "\n")
            buf = []
    if buf:
        out.write("\n".join(buf) + "\n")
    out.close()


if __name__ == "__main__":
    main(sys.argv[1:])
