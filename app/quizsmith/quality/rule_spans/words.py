"""The word lists and patterns behind the rule-based target finder (generation/targets.py):
stopwords, pronouns, frequent verbs and adjectives, name connectors, the suffixes that tell a
noun from an adjective, units and scales, and the regular expressions for dates, years,
quantities and words. Data only; the finders are in target_candidates.py and
target_phrases.py.
"""

from __future__ import annotations

import re
from typing import Final


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS: Final = _words(
    """a about above across after afterwards again against all almost alone along already also
    although always am among amongst an and another any anyhow anyone anything anyway anywhere
    are around as at back be became because become becomes becoming been before beforehand
    behind being below beside besides between beyond both but by can cannot could did do does
    doing done down due during each either else elsewhere enough etc even ever every everyone
    everything everywhere except few for former formerly from further had has have having he
    hence her here hereafter hereby herein hers herself him himself his how however i if in
    indeed into is it its itself just last latter latterly least less many may me meanwhile
    might mine more moreover most mostly much must my myself namely neither never nevertheless
    next no nobody none noone nor not nothing now nowhere of off often on once one only onto or
    other others otherwise our ours ourselves out over own per perhaps please quite rather
    really same several she should since so some somehow someone something sometime sometimes
    somewhere still such than that the their theirs them themselves then thence there
    thereafter thereby therefore therein thereupon these they this those though through
    throughout thru thus to together too toward towards under until up upon us very via was we
    well were what whatever when whence whenever where whereas whereby wherein whereupon
    wherever whether which while whither who whoever whole whom whose why will with within
    without would yet you your yours yourself yourselves also aka i.e e.g etc vs"""
)
PRONOUNS: Final = _words(
    """i me my mine myself you your yours yourself yourselves he him his himself she her hers
    herself it its itself we us our ours ourselves they them their theirs themselves this that
    these those who whom whose which what one ones someone something anyone anything everyone
    everything nobody nothing"""
)
#: Frequent verbs (and verb forms) that a suffix rule cannot tell from nouns.
COMMON_VERBS: Final = _words(
    """is are was were be been being am has have had having do does did done doing say says
    said make makes made making go goes went gone going get gets got gotten take takes took
    taken come comes came see sees saw seen know knows knew known give gives gave given find
    finds found think thinks thought tell tells told become becomes became show shows showed
    shown leave leaves left feel feels felt put puts bring brings brought begin begins began
    begun keep keeps kept hold holds held write writes wrote written stand stands stood hear
    hears heard let lets mean means meant set sets meet meets met run runs ran pay pays paid
    sit sits sat speak speaks spoke spoken lie lies lay lead leads led read reads grow grows
    grew grown lose loses lost fall falls fell fallen send sends sent build builds built
    understand draw draws drew drawn break breaks broke broken spend spends spent cut cuts rise
    rises rose risen drive drives drove driven buy buys bought wear wears wore worn choose
    chooses chose chosen seek seeks sought throw throws threw thrown catch catches caught deal
    deals dealt win wins won forms uses used use include includes including contains contain
    called known remains remain seems seem appears appear occurs occur consists consist
    provides provide allows allow requires require helps help produces produce gives tends
    became can could may might must shall should will would"""
)
MONTHS: Final = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_WEEKDAYS: Final = _words("monday tuesday wednesday thursday friday saturday sunday")
#: Lower-case words allowed inside a name: "Duke of the Abruzzi", "Charles de Gaulle".
_NAME_CONNECTORS: Final = _words("of the de du la le von van der den da di del for")
# "and" is deliberately not a connector: "CBS and NBC" are two names far more often than
# "Marks and Spencer" is one.
_DETERMINERS: Final = _words(
    """the a an this that these those its their his her our your my each every any some no
    of in on at by for from with into onto about against between among during through under
    over after before without within across toward towards upon as per"""
)
_NON_NOUN_SUFFIXES: Final = (
    "ly",
    "ed",
    "ous",
    "ful",
    "less",
    "ive",
    "ic",
    "ical",
    "able",
    "ible",
    "al",
    "ary",
    "est",
)
#: Nouns that the suffix rule would take for adjectives.
_NOUNS_WITH_ADJECTIVE_SUFFIX: Final = _words(
    """animal capital proposal arrival approval signal festival hospital crystal metal canal
    journal material potential principal rival survival terminal trial total interval mammal
    ritual manual individual official criminal general burial denial refusal removal dictionary
    library secretary boundary century summary salary anniversary military adjective objective
    executive representative detective relative native motive archive republic logic music
    topic clinic public fabric mechanic critic arithmetic rhetoric table cable variable vowel
    forest interest harvest protest contest conquest request test chest guest west quest"""
)
#: Frequent adjectives no suffix gives away; they modify a noun, they are not one.
_COMMON_ADJECTIVES: Final = _words(
    """able afraid alive alone aware bad better best big certain common current different
    difficult early easy entire false free full good great high important large late likely
    little long low main major many minor modern much new next old other own possible present
    real recent right same short similar simple small strong sure true various whole wide young
    worse worst larger largest smaller smallest higher highest lower lowest greater greatest
    older oldest newer newest former latter proper"""
)
_UNITS: Final = (
    r"%|percent|per\s?cent|km|kilomet(?:re|er)s?|m|met(?:re|er)s?|cm|centimet(?:re|er)s?|mm"
    r"|millimet(?:re|er)s?|mi|miles?|ft|feet|foot|inch(?:es)?|yards?|kg|kilograms?|g|grams?"
    r"|mg|milligrams?|lbs?|pounds?|ounces?|oz|tons?|tonnes?|t|l|litres?|liters?|ml|millilit"
    r"(?:re|er)s?|gallons?|acres?|hectares?|ha|sq\s?(?:km|mi|ft|m)|square\s(?:kilomet(?:re|er)s"
    r"|miles|met(?:re|er)s|feet)|km²|m²|°\s?[CF]?|degrees(?:\s(?:Celsius|Fahrenheit))?|K|kelvin"
    r"|mph|km/h|m/s|kph|knots?|Hz|kHz|MHz|GHz|W|kW|MW|GW|kWh|V|volts?|watts?|calories|kcal"
    r"|J|kJ|joules?|Pa|kPa|atm|bar|mol|ppm|years?|months?|weeks?|days?|hours?|h|hrs?|minutes?"
    r"|min|seconds?|s|ms|centur(?:y|ies)|decades?|millennia|bytes?|KB|MB|GB|TB"
    r"|dollars?|euros?|yen|francs?|pesos?|rupees?|marks?"
)
_SCALE: Final = r"hundred|thousand|million|billion|trillion|bn|mn"
_NUMBER: Final = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"

_DATE_PATTERNS: Final = tuple(
    re.compile(p)
    for p in (
        # 14 July 1789, 1st of May 1886, 14 July
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s(?:of\s)?(?:{MONTHS})\.?(?:,?\s\d{{3,4}})?\b",
        # July 14, 1789 / July 14th / July 1789
        rf"\b(?:{MONTHS})\.?\s\d{{1,2}}(?:st|nd|rd|th)?(?:,\s?\d{{3,4}})?\b(?![,.]\d)",
        rf"\b(?:{MONTHS})\s\d{{4}}\b",
        # the 1990s, the early 1950s, the mid-1960s, 1980s
        r"(?:\bthe\s)?(?:(?:early|mid|late)[\s-])?\b\d{2,3}0(?:s|'s)\b",
        # the 19th century, the nineteenth century, 5th century BC
        r"(?:\bthe\s)?(?:(?:early|mid|late)[\s-])?\b(?:\d{1,2}(?:st|nd|rd|th)|first|second|third"
        r"|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth"
        r"|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first)"
        r"[\s-]century(?:\s(?:BC|BCE|AD|CE))?\b",
        # 44 BC, AD 79, 3000 BCE
        r"\b\d{1,4}\s(?:BC|BCE|AD|CE)\b|\b(?:AD|CE)\s\d{1,4}\b",
        # 1914–1918, 1914-18
        r"\b1\d{3}\s?[–-]\s?(?:1\d{3}|\d{2})\b(?!\d)|\b20\d{2}\s?[–-]\s?(?:20\d{2}|\d{2})\b(?!\d)",
    )
)
# A year: 1000-2099, not part of a bigger number, a decimal, a money amount or a quantity.
_YEAR = re.compile(
    rf"(?<![\d.,$£€¥#])\b(?:1\d{{3}}|20\d{{2}})\b(?![.,]\d|\s?(?:{_UNITS}|{_SCALE})\b|%|\d)"
)
_QUANTITY = re.compile(
    rf"(?:[$£€¥]\s?|\b(?:US\$|USD|EUR|GBP)\s?)?(?<![\w.])-?(?:{_NUMBER})"
    rf"(?:\s?(?:{_SCALE})\b)?(?:\s?(?:{_UNITS})(?![\w]))?"
)
_WORD = re.compile(r"(?:[A-Z]\.){2,}|[^\W_][\w'’.-]*[^\W_]|[^\W_]")
_ACRONYM = re.compile(r"^(?:[A-Z]\.){2,}$|^[A-Z][A-Z0-9&-]*[A-Z0-9]s?$")
#: Titles before a person's name, left out of the answer ("Dr Smith": "Smith"). Not "St" or
#: "Mt": they begin a place's or a school's own name ("St Paul's Collegiate School" had been
#: cut to "Paul's Collegiate School", a key no passage reader would give; bench/generation.py).
_HONORIFICS: Final = _words("mr mrs ms dr prof sr jr gen col lt sgt rev")


_OPENERS: Final = _words(
    """later then today yesterday tomorrow meanwhile finally first second third next soon still
    instead afterwards eventually initially similarly consequently additionally furthermore
    nevertheless nonetheless however thus hence therefore also although though while when
    after before since during in on at by for from with without under over yes no today's"""
)
