"""The facts of the ingest benchmark: ``facts(n, seed=...)``, ``n`` distinct, deterministic sentences about people.

~30 sentence shapes about a person (first x last name), filled from vocabularies of places, jobs, foods, dates and
so on. Two facts of one shape always differ in a slot other than names, dates and numbers (see ``_WEAK``): with
MiniLM, pairs that differ only in those sit at cosine 0.97-0.99, above any dedupe threshold.
"""

from __future__ import annotations

import random
import re
import string


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST = _words(
    "Alice Bruno Chiara Dmitri Elena Farid Grace Hiro Ines Jonas Kavya Liam Mei Nadia Oscar Priya Quentin Rosa "
    "Samir Tove Umar Valentina Wei Ximena Yusuf Zoe Aiko Bilal Carmen Daniel Esra Felix Gita Hugo Ingrid Javier "
    "Kofi Lucia Mateo Nora Olga Pablo Rania Stefan Tariq Uma Viktor Wanda Yara Anders Beatriz Cyrus Dalia Emil "
    "Fatima Gustav Hana Ivan Jana Kenji Leila Marco Noor Otto Paula Rashid Sofia Tomas Ulla Vera Walter Amara "
    "Bastien Clara Diego Elif Fiona Goran Helga Isaac Julia Karim Lena Miguel Nina Omar Petra Reza Sven Tamar"
)
LAST = _words(
    "Okafor Lindqvist Moreau Tanaka Kowalski Haddad Ferreira Novak Schmidt Rossi Nguyen Petrov Dubois Jensen "
    "Mendes Adeyemi Costa Huber Ivanova Kim Larsen Mbeki Nakamura Ortiz Papadopoulos Quinn Richter Santos "
    "Takahashi Urquhart Varga Weber Yilmaz Zhang Abbasi Bauer Castillo Demir Eriksen Fischer Garcia Hansen "
    "Ishikawa Jovanovic Keller Lopez Meyer Nilsson Olsen Park Ramos Sato Torres Ulrich Vasquez Wagner Young "
    "Zimmermann Aydin Becker Chen Dahl Engel Fuchs Gomez Horvat Iqbal Jung Kaur Lambert Marsh Nowak Oliveira "
    "Perez Reyes Schulz Tran Vogel Walsh Xu Yamamoto Zeller Brennan Carvalho Duarte Falk Gallo Hartmann Ibsen"
)

V: dict[str, tuple[str, ...]] = {
    "city": _words(
        "Lisbon Berlin Nairobi Osaka Toronto Lyon Krakow Bergen Porto Seville Tallinn Montreal Da-Nang Cusco "
        "Leipzig Valparaiso Tbilisi Ghent Bologna Halifax Hobart Bilbao Dakar Sapporo Tromso Zagreb Ljubljana "
        "Marrakesh Oaxaca Wellington Aarhus Gdansk Rotterdam Antwerp Salzburg Izmir"
    ),
    "role": (
        "data engineer", "nurse", "pastry chef", "tax accountant", "civil engineer", "UX researcher",
        "high school teacher", "veterinarian", "site reliability engineer", "paralegal", "translator",
        "product manager", "physiotherapist", "electrician", "urban planner", "research chemist", "pilot",
        "copy editor", "social worker", "architect", "sound engineer", "radiologist",
    ),
    "company": _words(
        "Northwind Helix Brightline Corvid Tessellate Juniper-Labs Atlas-Freight Mosaic-Health Fjord-Energy "
        "Bluebird-Bank Quarry-Games Solstice Kettle-Robotics Marlow-Insurance Greenhouse-Media Ironbark "
        "Pelican-Logistics Verdant-Foods Lumen-Optics Cobalt-Software"
    ),
    "allergen": (
        "peanuts", "shellfish", "penicillin", "cat dander", "birch pollen", "latex", "sesame", "bee stings",
        "lactose", "gluten", "kiwi fruit", "ibuprofen",
    ),
    "med": ("an epinephrine pen", "antihistamine tablets", "an inhaler", "a medical alert card",
            "a printed allergy list", "eye drops"),
    "drink": ("green tea", "oat milk flat white", "sparkling water", "espresso", "chai latte", "black coffee",
              "hot chocolate", "kombucha", "mint tea", "orange juice", "decaf americano", "matcha"),
    "modifier": ("with no sugar", "extra hot", "with a slice of lemon", "in a large mug", "iced in summer",
                 "with honey", "half strength", "with cinnamon on top"),
    "pet": ("dog", "cat", "parrot", "rabbit", "tortoise", "ferret", "horse", "hamster"),
    "petname": _words("Biscuit Pepper Mochi Juno Rufus Olive Ziggy Tofu Luna Basil Nacho Pixel Clementine "
                     "Banjo Sirius Waffles"),
    "petneed": ("a walk", "joint supplements", "fresh hay", "a vet check", "ear drops", "grooming",
                "a special diet", "insulin shots"),
    "freq": ("morning", "evening", "week", "fortnight", "month", "six hours"),
    "restaurant": ("Casa Lupita", "the Blue Heron", "Sakura Garden", "Trattoria Nonna", "the Copper Pot",
                   "Little Saigon", "Le Petit Zinc", "the Old Mill", "Spice Route", "Fish and Fig",
                   "the Green Olive", "Bao House"),
    "weekday": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "hour": ("7:15 am", "8 am", "9:30 am", "11 am", "noon", "1:45 pm", "3 pm", "4:30 pm", "6 pm",
             "7:30 pm", "8:45 pm", "10 pm"),
    "language": ("Japanese", "Portuguese", "Arabic", "Finnish", "Korean", "Swahili", "Italian", "Polish",
                 "Mandarin", "Greek", "Turkish", "Dutch"),
    "book": ("The Left Hand of Darkness", "Middlemarch", "Piranesi", "The Remains of the Day", "Dune",
             "Beloved", "Pachinko", "The Master and Margarita", "Stoner", "A Gentleman in Moscow",
             "The Name of the Rose", "Never Let Me Go"),
    "season": ("winter", "spring", "summer", "autumn", "holiday season", "rainy season"),
    "race": ("half marathon", "marathon", "10k charity run", "trail ultra", "sprint triathlon",
             "Olympic distance triathlon", "5k park run", "mountain relay"),
    "duration": ("1 hour 52 minutes", "3 hours 41 minutes", "47 minutes", "2 hours 8 minutes",
                 "5 hours 15 minutes", "24 minutes", "1 hour 19 minutes", "4 hours 2 minutes"),
    "item": ("camping tent", "espresso machine", "concert tickets", "rental car", "birthday gift",
             "holiday cottage", "new sofa", "kayak", "road trip fuel", "wedding present"),
    "amount": ("35", "120", "48.50", "260", "15", "75", "1,200", "89", "310", "22", "40", "64", "150", "95", "18",
               "500", "230", "57", "410", "80"),
    "project": ("Aurora", "billing migration", "Kestrel", "onboarding redesign", "Tidewater", "search revamp",
                "Granite", "mobile checkout", "Lighthouse", "data retention", "Saffron", "warehouse scanner"),
    "month": ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"),
    "day": tuple(str(d) for d in range(1, 29)),
    "year": tuple(str(y) for y in range(1988, 2025)),
    "blocker": ("a missing security review", "legal sign-off", "a vendor API outage", "budget approval",
                "a flaky integration test", "the database upgrade", "unclear requirements",
                "hiring a second designer"),
    "clinic": ("Riverside Medical", "the Elm Street clinic", "Harbour Health", "the Old Town practice",
               "City Care Centre", "the university hospital", "St. Mary's hospital", "the Northgate clinic",
               "Lakeside Health", "the sports medicine centre"),
    "instrument": ("bass guitar", "drums", "cello", "trumpet", "keyboard", "violin", "saxophone", "banjo"),
    "genre": ("jazz", "punk", "folk", "ska", "funk", "bluegrass", "post-rock", "salsa"),
    "band": ("Velvet Static", "the Night Owls", "Paper Lanterns", "Second Breakfast", "Loose Gravel",
             "the Tin Hats", "Northern Lights", "Cactus Choir"),
    "color": ("red", "silver", "dark green", "white", "navy blue", "yellow", "black", "orange"),
    "car": ("Volvo estate", "Toyota Prius", "Fiat Panda", "Tesla Model 3", "Ford Transit van", "Mini Cooper",
            "Skoda Octavia", "Renault Zoe"),
    "parking": ("the underground garage on level minus two", "the lot behind the library",
                "spot 14 at the office", "the street outside the bakery", "a rented space near the station"),
    "place": ("the airport lounge", "a night bus", "the gym locker room", "the farmers market",
              "a hotel lobby", "the cinema", "the train station", "a conference hall"),
    "lostitem": ("passport", "laptop bag", "house keys", "wedding ring", "prescription glasses", "wallet",
                 "phone", "umbrella"),
    "authority": ("the lost and found desk", "the police", "station staff", "hotel security",
                  "the bus company", "event organisers"),
    "field": ("marine biology", "mechanical engineering", "art history", "economics", "computer science",
              "linguistics", "nursing", "philosophy", "statistics", "architecture"),
    "university": ("the University of Edinburgh", "TU Delft", "McGill", "the University of Cape Town",
                   "Kyoto University", "ETH Zurich", "the Sorbonne", "the University of Melbourne"),
    "topic": ("coral bleaching", "wind turbine fatigue", "Dutch still lifes", "microfinance", "compiler "
              "optimisation", "sign language grammar", "sleep in shift workers", "Kant's ethics",
              "survival analysis", "passive housing"),
    "team": ("payments", "platform", "mobile", "support", "growth", "infrastructure", "design", "sales"),
    "occasion": ("birthdays", "Christmas dinner", "anniversaries", "family reunions", "New Year's Eve",
                 "work dinners"),
    "fish": ("salmon", "sushi", "grilled sardines", "fish and chips", "tuna steak", "smoked trout"),
    "appliance": ("washing machine", "dishwasher", "boiler", "fridge", "extractor fan", "tumble dryer"),
    "room": ("kitchen", "basement", "utility room", "bathroom", "garage"),
    "noise": ("loud grinding", "high-pitched whining", "rattling", "clicking", "humming", "banging"),
    "flight": ("LH 1432", "BA 287", "KL 1019", "AF 6702", "TP 541", "SK 903", "IB 3166", "AY 1332"),
    "gate": ("A4", "B12", "C27", "D3", "E19", "F8", "G31", "H2"),
    "report": ("quarterly sales", "incident", "churn analysis", "budget forecast", "security audit",
               "customer survey", "latency", "inventory"),
    "format": ("PDF", "Excel", "CSV", "slide deck", "Markdown", "Google Docs", "Word", "plain text"),
    "meeting": ("Monday standup", "board", "quarterly planning", "client kickoff", "all-hands",
                "architecture review"),
    "org": ("food bank", "animal shelter", "public library", "refugee centre", "community garden",
            "children's hospital"),
    "child": ("Emma", "Noah", "Lina", "Theo", "Maya", "Arjun", "Elsa", "Kai", "Amelie", "Ravi"),
    "school": ("primary school", "kindergarten", "secondary school", "a music academy", "swimming lessons",
               "a bilingual school"),
    "bus": ("number 7", "number 23", "school shuttle", "number 41", "early 112", "night 9"),
    "bug": ("timezone", "memory leak", "race condition", "off-by-one", "encoding", "caching",
            "null pointer", "rounding"),
    "component": ("the invoice exporter", "the login service", "the search indexer", "the mobile sync job",
                  "the payment webhook", "the report scheduler", "the image resizer", "the email queue"),
    "fix": ("adding a lock around the counter", "storing timestamps in UTC", "bounding the cache size",
            "retrying with exponential backoff", "validating the input encoding", "using decimal arithmetic",
            "closing the file handles"),
    "bpm": tuple(str(b) for b in range(44, 80)),
    "activity": ("a week of yoga", "a hiking holiday", "a cycling tour", "a month of daily swimming",
                 "a silent retreat", "a running camp", "a rowing course", "a month of cold showers",
                 "a dance workshop", "a surfing course", "a climbing trip", "a fasting week"),
    "goal": ("house deposit", "sabbatical in South America", "new road bike", "electric car",
             "master's degree", "kitchen renovation", "wedding", "trip to Japan"),
    "dish": ("mole negro", "wood-fired pizza", "ramen", "lamb tagine", "ceviche", "dumplings",
             "pistachio ice cream", "paella"),
    "editor": ("Neovim", "VS Code", "Emacs", "IntelliJ", "Sublime Text", "Helix"),
    "theme": ("Solarized Dark", "Gruvbox", "Nord", "Dracula", "One Light", "Monokai"),
    "font": ("JetBrains Mono", "Fira Code", "Iosevka", "Cascadia Code", "Source Code Pro"),
    "proglang": ("Rust", "Python", "Go", "TypeScript", "Haskell", "Kotlin", "C++", "Elixir"),
    "sport": ("tennis", "badminton", "climbing", "volleyball", "squash", "table tennis", "padel"),
    "venue": ("the sports centre", "the park courts", "the university gym", "a bouldering hall",
              "the community hall", "a private club", "the school gym", "the leisure centre"),
    "plant": ("tomatoes", "basil", "chillies", "strawberries", "courgettes", "lavender", "runner beans"),
    "app": ("Duolingo", "a private tutor", "evening classes", "Anki flashcards", "podcasts", "a textbook",
            "a tandem partner", "Babbel"),
    "brand": ("Bosch", "Miele", "Samsung", "Whirlpool", "Siemens", "Electrolux", "LG", "Beko"),
    "device": ("Garmin watch", "Fitbit", "Oura ring", "chest strap", "Polar watch", "Apple Watch",
               "pulse oximeter", "Whoop band"),
    "outing": ("a balloon ride", "a boat trip", "a cave tour", "a rooftop dinner", "a zip line day",
               "a snorkelling trip", "a glacier hike", "a theatre night"),
    "celebration": ("a promotion", "a birthday", "their anniversary", "a new job", "passing the bar exam",
                    "a house move", "a retirement", "a graduation"),
    "readplace": ("a long train ride", "a beach holiday", "a night shift", "a rainy weekend", "a flight",
                  "a hospital stay"),
    "charity": ("cancer research", "a children's hospice", "clean water projects", "the local food bank",
                "mental health charities", "wildlife rescue", "the lifeboat service", "refugee support"),
    "shop": ("the flea market", "an outdoor shop", "IKEA", "a department store", "an online auction",
             "the village fair", "a second-hand shop", "the airport duty free"),
    "checkup": ("dentist", "eye test", "physiotherapy", "blood test", "dermatology", "hearing check",
                "vaccination", "cardiology"),
    "doctor": ("Dr. Alvarez", "Dr. Okoye", "Dr. Lindgren", "Dr. Fontaine", "Dr. Haas", "Dr. Mwangi",
               "Dr. Castro", "Dr. Berg", "Dr. Sorensen", "Dr. Ito"),
    "wedvenue": ("a vineyard", "the town hall", "a lighthouse", "a mountain hut", "a botanical garden",
                 "a castle", "a beach bar", "a converted barn"),
    "tripreason": ("a sales conference", "a family wedding", "a job interview", "a ski week", "a funeral",
                   "a client workshop", "a football final", "a research visit"),
    "airport": ("Schiphol", "Heathrow", "Frankfurt", "Charles de Gaulle", "Barajas", "Kastrup", "Vienna",
                "Zurich"),
    "vtask": ("sorting donations", "teaching kids to read", "walking the dogs", "driving the van",
              "cooking lunch", "fixing bikes", "doing the accounts", "answering the phones"),
    "product": ("banking", "booking", "fitness", "food delivery", "ticketing", "ride sharing", "recipe",
                "podcast"),
    "account": ("a high-yield savings account", "an index fund", "a separate current account", "a jar",
                "a credit union account", "a money market fund"),
    "hvenue": ("the community hall", "a local library", "the youth centre", "a church basement",
               "the art school", "a rented studio"),
    "party": ("two", "three", "four", "five", "six", "eight", "ten", "twelve"),
    "hobby": ("pottery", "birdwatching", "woodworking", "watercolour painting", "sourdough baking",
              "salsa dancing", "chess", "knitting"),
    "fear": ("heights", "deep water", "flying", "spiders", "public speaking", "tunnels", "crowds", "dogs",
             "thunderstorms", "small boats"),
}

TEMPLATES: tuple[str, ...] = (
    "{p} moved from {city} to {city2} in {month} {year} to start a job as a {role}.",
    "{p} has been allergic to {allergen} since an incident in {city} in {year} and always carries {med}.",
    "{p} prefers {drink} over {drink2} and orders it {modifier} in the cafés of {city}.",
    "{p}'s {pet} {petname} is getting old and needs {petneed} every {freq}.",
    "{p} works as a {role} at {company} in {city} and reports to {q}.",
    "{p} booked a table for {party} at {restaurant} in {city} on {weekday} to celebrate {celebration} with {q}.",
    "{p} is learning {language} with {app} before moving to {city} and practises with {q} every {weekday}.",
    "{p} first read {book} during {readplace} in {city} in {year} and rereads it every {season}.",
    "{p} finished the {race} in {city} in {duration} last {season}, raising money for {charity}.",
    "{p} owes {q} {amount} euros for the {item} they bought together at {shop} in {city}.",
    "The {project} project at {company}, led by {p}, is due on {month} {day} and is blocked on {blocker}.",
    "{p} has a {checkup} appointment with {doctor} at {clinic} on {weekday} {month} {day} at {hour}.",
    "{p} plays {instrument} in a {genre} band called {band} that rehearses in {city}.",
    "{p} drives a {color} {car} bought in {year} and parks it in {parking} in {city}.",
    "{p} lost their {lostitem} at {place} in {city} and reported it to {authority}.",
    "{p} graduated in {field} from {university} in {year} with a thesis on {topic}.",
    "{p} from {company} is on parental leave from {month} to {month2}; {q} covers the {team} team in {city}.",
    "{p} has been vegetarian since {year} but eats {fish} at {occasion} in {city}.",
    "According to {p}, the {brand} {appliance} in the {room} has made a {noise} noise since {month}.",
    "{p} and {q} got married at {wedvenue} in {city} on {month} {day}, {year}, then honeymooned in {city2}.",
    "{p}'s flight {flight} to {city} for {tripreason} leaves from {airport} gate {gate} at {hour} on {weekday}.",
    "{p} needs the {report} report for {company} as a {format} file before the {meeting} meeting on {weekday}.",
    "{p} volunteers at the {org} in {city} every other {weekday} morning, mostly {vtask}.",
    "{p}'s daughter {child} starts {school} in {city} in {month} and will take the {bus} bus.",
    "{p} fixed the {bug} bug in {component} of the {product} app by {fix}.",
    "{p}'s resting heart rate dropped to {bpm} beats per minute after {activity} in {city}, says their {device}.",
    "{p} is saving for a {goal} in {city} and puts {amount} euros a month into {account}.",
    "{p} recommends {restaurant} in {city} mainly for its {dish}.",
    "{p} writes {proglang} in {editor} with the {theme} theme and the {font} font.",
    "Every {weekday} at {hour}, {p} plays {sport} with {q} at {venue} in {city}.",
    "{p} grows {plant} and {plant2} on the balcony of their flat in {city}.",
    "{p} took up {hobby} in {year} and now teaches a beginners class at {hvenue} in {city}.",
    "{p} has been afraid of {fear} since a bad experience in {city}, so {q} avoids planning {outing}.",
)

_FIELDS = {t: [f for _, f, _, _ in string.Formatter().parse(t) if f] for t in TEMPLATES}


_WEAK = frozenset({"p", "q", "month", "weekday", "day", "year", "hour", "season", "freq", "party", "amount", "bpm",
                   "duration", "gate", "flight"})
"""Slots whose values barely move a sentence embedding (names, dates, numbers): two facts of one template must
differ in some other slot. Measured with MiniLM: a pair that differs only in these sits at cosine 0.97-0.99."""


def _vocab_key(field: str) -> str:
    return field.rstrip(string.digits)


def _person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _fill(template: str, rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """A filled template and its key: the template and its values, less the weak ones."""
    values: dict[str, str] = {}
    used: dict[str, set[str]] = {}
    for slot in _FIELDS[template]:
        if slot in values:
            continue
        key = _vocab_key(slot)
        while True:  # {city} and {city2} get different cities
            if key == "p":
                value = _person(rng)
            elif key == "q":  # someone else, by first name (how people speak of friends and colleagues)
                value = rng.choice(FIRST)
            else:
                value = rng.choice(V[key])
            if value not in used.setdefault(key, set()):
                break
        used[key].add(value)
        values[slot] = value
    if "q" in values and values["p"].startswith(values["q"] + " "):
        values["q"] = next(f for f in FIRST if f != values["q"])
    key_values = tuple(v for f, v in values.items() if _vocab_key(f) not in _WEAK)
    return template.format_map(values), (template, *key_values)


_CLOSE = frozenset(t for t in TEMPLATES if t.startswith((
    "According to {p}, the {brand}", "{p} fixed the {bug}", "{p} writes {proglang}", "{p}'s resting heart",
    "{p} has been vegetarian",
)))
"""Templates with a long fixed part, where facts one value apart still reach cosine 0.92-0.97 (measured)."""


def _taken_keys(key: tuple[str, ...]) -> set[tuple[str, ...]]:
    """What a fact rules out: its key, or for a ``_CLOSE`` template every key at most one value away."""
    template, values = key[0], key[1:]
    if template not in _CLOSE:
        return {key}
    return {(template, str(i), *values[:i], *values[i + 1:]) for i in range(len(values))}


_ARTICLE = re.compile(r"\ba (?=[aeiouAEIO])")  # "a Oura ring" -> "an Oura ring"; "a UX researcher" stays


def facts(n: int, *, seed: int = 7) -> list[str]:
    """``n`` distinct facts of 8-25 words, the same for the same ``n`` and ``seed``."""
    rng = random.Random(seed)
    out: list[str] = []
    taken: set[tuple[str, ...]] = set()
    misses = 0
    while len(out) < n:
        text, key = _fill(rng.choice(TEMPLATES), rng)
        partial = _taken_keys(key)
        if not partial.isdisjoint(taken):
            misses += 1
            if misses > 50 * n + 10_000:
                raise ValueError(f"cannot make {n} distinct facts from these templates (got {len(out)})")
            continue
        text = _ARTICLE.sub("an ", text)
        words = len(text.split())
        if not 8 <= words <= 25:
            raise AssertionError(f"fact of {words} words: {text!r}")
        taken |= partial
        out.append(text)
    return out
