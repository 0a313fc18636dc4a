"""Write N synthetic facts as JSONL, one ``{"source", "relation", "target", "fact"}`` object a line (stdlib only).

    python benchmarks/graphiti_peer/make_facts.py --n 10000 --out facts-10k.jsonl

Deterministic for a given ``--seed``. Entities repeat across facts (about n/20 people, a fixed pool of
objects), so the graph has shared nodes the way a real memory does. Every (source, relation, target)
triple is distinct, so every fact sentence is distinct too.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def _split(text: str, sep: str = "|") -> list[str]:
    return [part.strip() for part in text.split(sep)]


FIRST = _split(
    "Caroline Melanie Jon Gina John Maria Tim Audrey Andrew Deborah Evan Sam Calvin Dave Joanna Nate Jolene "
    "Priya Tomas Yuki Omar Lena Felix Ingrid Rafael Aisha Bruno Chloe Diego Elena Farid Greta Hugo Imani "
    "Jasper Kira Luca Mira Nikolai Olga Pavel Quinn Rosa Stefan Tara Umar Vera Wes Xenia Yara Zane",
    " ",
)
LAST = _split(
    "Abbott Baker Castillo Dubois Eriksen Fischer Garcia Haddad Ivanova Jensen Kowalski Lindqvist Moreau "
    "Nakamura Okafor Petrov Quintero Rossi Schmidt Tanaka Ueda Varga Weber Xu Yilmaz Zhang",
    " ",
)

# relation, sentence template, target pool ("|"-separated)
_RELATIONS = [
    (
        "ATTENDED",
        "{s} attended {t}",
        "an LGBTQ support group|a pottery class|a jazz concert|a charity run|a book club meeting|a coding bootcamp|"
        "a wedding in Lisbon|a yoga retreat|a photography workshop|a climate march|a chess tournament|a cooking class",
    ),
    ("LIVES_IN", "{s} lives in {t}", "Berlin|Toronto|Osaka|Nairobi|Lima|Oslo|Austin|Lyon|Melbourne|Seoul|Porto|Denver"),
    (
        "WORKS_AT",
        "{s} works at {t}",
        "a bakery|a hospital|a law firm|a game studio|a bank|a public library|a robotics startup|a vineyard|"
        "a museum|an animal shelter|a university lab|a bike shop",
    ),
    (
        "OWNS",
        "{s} owns {t}",
        "a golden retriever|a vintage camera|a red bicycle|a sailboat|an electric guitar|a tabby cat|a telescope|"
        "a food truck|a collection of vinyl records|a greenhouse|a motorcycle",
    ),
    (
        "LIKES",
        "{s} likes {t}",
        "hiking|painting|sci-fi novels|spicy food|board games|gardening|surfing|classical music|baking bread|"
        "birdwatching|rock climbing|crossword puzzles|ballroom dancing",
    ),
    (
        "STUDIED",
        "{s} studied {t}",
        "psychology|marine biology|architecture|economics|computer science|art history|nursing|"
        "mechanical engineering|philosophy|journalism|chemistry",
    ),
    (
        "VISITED",
        "{s} visited {t}",
        "the Grand Canyon|Kyoto|the Louvre|Iceland|Machu Picchu|a lavender farm|the Sahara|Venice|"
        "a national park in Utah|the Great Barrier Reef|Patagonia",
    ),
    (
        "PLAYS",
        "{s} plays {t}",
        "the violin|tennis|the piano|basketball|the drums|chess|volleyball|the cello|soccer|the ukulele",
    ),
    ("ADOPTED", "{s} adopted {t}", "a rescue dog|two kittens|a parrot|a retired greyhound|a rabbit|a tortoise"),
    (
        "VOLUNTEERS_AT",
        "{s} volunteers at {t}",
        "a food bank|a homeless shelter|a youth center|a hospice|a community garden|a literacy program",
    ),
]
RELATIONS = [(rel, template, _split(pool)) for rel, template, pool in _RELATIONS]
PERSON_RELATIONS = [
    ("FRIEND_OF", "{s} is a close friend of {t}"),
    ("MENTORS", "{s} mentors {t}"),
    ("MARRIED_TO", "{s} is married to {t}"),
    ("SIBLING_OF", "{s} is a sibling of {t}"),
    ("COLLEAGUE_OF", "{s} works with {t}"),
]


def make_facts(n: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    people_count = max(20, n // 20)
    names = [f"{f} {la}" for f in FIRST for la in LAST]
    rng.shuffle(names)
    if people_count > len(names):
        names += [f"{name} {i}" for i in range(2, people_count // len(names) + 2) for name in names]
    people = names[:people_count]
    return [{"source": s, "relation": rel, "target": t, "fact": fact} for s, rel, t, fact in draw(rng, people, n)]


def draw(rng: random.Random, people: list[str], n: int) -> list[tuple[str, str, str, str]]:
    """n distinct (subject, relation, object, sentence) facts about ``people``: a fifth between two people."""
    seen: set[tuple[str, str, str]] = set()
    facts: list[tuple[str, str, str, str]] = []
    while len(facts) < n:
        s = rng.choice(people)
        if rng.random() < 0.2:
            rel, template = rng.choice(PERSON_RELATIONS)
            t = rng.choice(people)
            if t == s:
                continue
        else:
            rel, template, pool = rng.choice(RELATIONS)
            t = rng.choice(pool)
        if (s, rel, t) in seen:
            continue
        seen.add((s, rel, t))
        fact = template.format(s=s, t=t)
        facts.append((s, rel, t, fact[0].upper() + fact[1:]))
    return facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    facts = make_facts(args.n, args.seed)
    with args.out.open("w", encoding="utf-8") as fh:
        for fact in facts:
            fh.write(json.dumps(fact) + "\n")
    print(f"wrote {len(facts)} facts to {args.out}")


if __name__ == "__main__":
    main()
