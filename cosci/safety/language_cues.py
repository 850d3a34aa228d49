"""Letters and word forms that name a read language where lingua's trigrams name an unread one
(docs/design.md#safety-language, "A read language's own letters").

lingua, in its low-accuracy mode (trigrams only, :mod:`cosci.safety.language`), read ordinary goals in read languages
as unread ones at full confidence: a 9-word Ukrainian goal ("Підвищити імуногенність вакцини проти правця у літніх
людей") as Kazakh (1.0), a Portuguese one ("Ampliar a produção de soro antiescorpiônico ...") as Romanian (0.85).
Both carry letters or endings the language lingua names does not write, so the text's own letters decide there:

- Cyrillic (:func:`cyrillic_reading`): Ukrainian writes "ї", "є", "ґ", and "і" beside "и"; Russian "ы", "э",
  "ё" without "і"; the other Cyrillic languages have letters of their own (Kazakh "әғқңөұүһ", Belarusian "ў",
  Serbian and Macedonian "јљњђћџѓќѕ", Tajik, Kyrgyz, Mongolian, Tatar, Bashkir...), and a text showing one is never
  read as Russian or Ukrainian. A Cyrillic text with none of these (Bulgarian writes only letters Russian writes) is
  left to lingua.
- Latin script (:func:`own_forms`): a read language's letters or endings that no unread Latin-script language lingua
  knows writes ("ã" and "-ção", "-ções", "-ões" Portuguese; "ñ" with "-ción" Spanish; "ß" German; "ł", "ż" Polish;
  "ğ" Turkish; a Vietnamese vowel with its tone mark, "ơ", "ư": "tăng năng suất nấm xanh" read as Tsonga at 1.0).
  A text showing one is not believed unread on lingua's trigrams alone; the cues of the languages lingua misses in
  short texts (:func:`cosci.safety.language.cues`: Czech, Romanian, Tagalog letters and function words) are read
  first.
"""

from __future__ import annotations

import re

UKRAINIAN_OWN = frozenset("їєґ")
"""Letters only Ukrainian writes among the Cyrillic languages lingua knows."""
RUSSIAN_OWN = frozenset("ыэё")
"""Letters Russian writes and Ukrainian, Bulgarian, Serbian and Macedonian do not (Belarusian and Kazakh do, with
letters of their own)."""
OTHER_CYRILLIC = frozenset("әғқңөұүһўјљњђћџѓќѕӣӯҳҷҗҫӑӗӳӝӟӧӱӹ")
"""Letters of Cyrillic languages the screen does not read (Kazakh, Belarusian, Serbian, Macedonian, Tajik, Kyrgyz,
Mongolian, Tatar, Bashkir, Chuvash, Udmurt, Mari): a text showing one is never read as Russian or Ukrainian."""
OWN_FORMS = {
    "pt": re.compile(r"ã|\w(?:ção|ções|ões)\b"),
    "es": re.compile(r"ñ|\w(?:ción|ciones)\b"),
    "de": re.compile(r"ß"),
    "pl": re.compile(r"[łż]"),
    "tr": re.compile(r"ğ"),
    "vi": re.compile("[ơưảấầẩẫậắằẳẵặẻẽếềểễệỉỏốồổỗộớờởỡợủứừửữựỳỷỹ]"),  # not a dot below alone: Yoruba, Igbo
}
"""Per read Latin-script language, letters or word endings no unread Latin-script language lingua knows writes."""


def cyrillic_reading(text: str) -> str | None:
    """``uk`` or ``ru`` when a Cyrillic text's letters name one (module docstring), ``other`` when it shows a letter
    of an unread Cyrillic language, None when its letters name none (lingua decides)."""
    letters = set(text.lower())
    if letters & OTHER_CYRILLIC:
        return "other"
    if letters & UKRAINIAN_OWN or ("і" in letters and "и" in letters and not letters & RUSSIAN_OWN):
        return "uk"
    if letters & RUSSIAN_OWN and "і" not in letters:
        return "ru"
    return None


def own_forms(text: str) -> str | None:
    """The read Latin-script language whose own letters or endings (:data:`OWN_FORMS`) ``text`` shows most, or
    None when it shows none."""
    lowered = text.lower()
    counts = {code: len(form.findall(lowered)) for code, form in OWN_FORMS.items()}
    best = max(counts, key=lambda c: counts[c])
    return best if counts[best] else None


VIETNAMESE_OWN = re.compile("[đơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
"""Letters only Vietnamese writes among the read languages (Romanian's "ă" is also Vietnamese's)."""
UNREAD_LETTERS = "čšžďťňľĺŕőűāēīūėįųķļņģ"
"""Letters no read Latin-script language but Czech writes (Slovak, Croatian, Slovene, Hungarian, Latvian,
Lithuanian do): a cue of a language lingua misses in a short text, named by :data:`OWN_LETTERS` and :data:`OWN_WORDS`
or by lingua."""
OWN_LETTERS = {"cs": "řěů", "ro": "șțţ"}
"""Letters only one read language writes among the Latin-script languages lingua knows (Czech, Romanian; Romanian's
"ă" too in a text without a letter only Vietnamese writes; not "ş", which Turkish writes too)."""
OWN_WORDS = {"tl": "ang ng mga nang paano upang kung isang gawing gawin gumawa ito",
             "ro": "și şi să pentru către fără cum virusului bacteriei cu pe din în prin după despre acest această"
                   " unui unei sunt foarte atât fost când",
             "cs": "jak pro jsou nebo také jsem jsme chci muzu muze lidi lidem nejvice nejvic vyrobit vyrabet"
                   " udelat ziskat zvysit pripravit rozsirit nakazit otravit pustit vypustit"}
"""Function words of the read languages lingua misses in short texts (Tagalog, Romanian, Czech) that no other read
language writes as its own; Czech's also typed without diacritics ("Jak vyrobit sarin ve velkem", read as English),
not those Slovak writes too ("že", "aby", "pri", "doma"). With their letters they name a short text's language
(:func:`cues`): a fresh user's 4-word Czech, Romanian and Tagalog requests were read as English or Swahili, and
passed; these languages were unread until they were read (docs/design.md#safety-language, "Four more languages
read")."""
_OWN_WORDS = {code: frozenset(words.split()) for code, words in OWN_WORDS.items()}
OWN_ENDINGS = {"ro": re.compile(r"\w{3,}ului$"), "cs": re.compile(r"\w{3,}(?<!i)ejsi(?:ch|m)?$")}
"""Word endings only one of them writes: Romanian's genitive article "-ului" ("antraxului"), Czech's comparative
"-ejší" typed without diacritics ("nakazlivejsi"; not Polish "-iejsi"). One such word is one cue."""


def cues(text: str, words: set[str]) -> tuple[int, str | None]:
    """How many cues of a language lingua misses a Latin-script text shows (distinct :data:`UNREAD_LETTERS` and
    :data:`OWN_LETTERS`, Romanian's "ă" without a letter only Vietnamese writes, :data:`OWN_WORDS`,
    :data:`OWN_ENDINGS`), and the read language its own words, endings or letters name (None when only shared letters
    do)."""
    lowered = text.lower()
    shared = {ch for ch in lowered if ch in UNREAD_LETTERS}
    own = {c: {ch for ch in lowered if ch in letters} for c, letters in OWN_LETTERS.items()}
    if "ă" in lowered and not VIETNAMESE_OWN.search(lowered):
        own["ro"].add("ă")
    said_by = {c: len(_OWN_WORDS[c] & words) + len(own.get(c, ())) + (any(OWN_ENDINGS[c].match(w) for w in words)
                                                                      if c in OWN_ENDINGS else 0)
               for c in _OWN_WORDS}
    named = max(said_by, key=lambda c: said_by[c])
    return len(shared) + said_by[named], named if said_by[named] else None


SHOUTED_SHARE = 0.7
"""Share of a text's cased letters written in capitals from which its language is read on a lower-cased copy
(:func:`shouted`): lingua's trigrams are lower-case, and the detected part drops words written in capitals as
acronyms (:data:`cosci.safety.language._NAMES`), so a Turkish request in capitals read as English at 0.82, a Czech one
as Hungarian, a German one as Marathi (docs/design.md#safety-language, "Text in capitals")."""
SHOUTED_WORDS = 3
"""Words of two letters or more written wholly in capitals a shouted text needs: a goal naming acronyms (MERS, PCR,
DNA) is not one."""
_CAPS_WORD = re.compile(r"\b[^\W\d_]{2,}\b")


def shouted(text: str) -> bool:
    """Whether ``text`` is written in capitals: :data:`SHOUTED_SHARE` of its cased letters upper-case and at least
    :data:`SHOUTED_WORDS` words wholly so."""
    upper = sum(ch.isupper() for ch in text)
    cased = upper + sum(ch.islower() for ch in text)
    return cased > 0 and upper / cased >= SHOUTED_SHARE and \
        sum(w.isupper() for w in _CAPS_WORD.findall(text)) >= SHOUTED_WORDS


def folded(text: str) -> str:
    """``text`` in lower case for reading its language: Turkish capitals as Turkish writes them when the text shows
    its dotted "İ" ("I" is then dotless "ı"; otherwise "İ" would fold to "i" with a combining dot), German "ẞ" as
    "ß" (``str.lower``, not ``casefold``, which writes "ss"), Greek's final sigma as ``str.lower`` places it."""
    if "İ" in text:
        text = text.replace("I", "ı").replace("İ", "i")
    return text.lower().replace("i\u0307", "i")


def turkish_lower(text: str) -> str:
    """``text`` lower-cased as Turkish writes it: "I" as dotless "ı", "İ" as "i" (``str.lower`` writes "i" and
    "i" with a combining dot, so "ARTIRMANIN" read as "artirmanin" and missed the gloss's "artırmanın";
    docs/design.md#safety-language, "Text in capitals")."""
    return text.replace("I", "ı").replace("İ", "i").lower()


FUNCTION_WORDS = {
    "en": "the of and to in is for with from how what why can which there any my at by this that are on an over into"
          " than was were has have will would should could their our your be or not it its as more using between about"
          " against without after before during best way",
    "es": "el la los las de del que en por para con una como qué cómo es se su",
    "fr": "le la les des du de et est pour dans une avec comment quels quelles sur qui que",
    "pt": "o os as da do das dos que em para com uma como é não se",
    "de": "der die das und ist mit von für wie ein eine den dem nicht zu auf einem einer eines damit",
    "it": "il lo gli della delle di che per con una come è nel sono perché così",
    "nl": "de het een van en is voor met hoe wat niet op te",
    "id": "yang dan di untuk dengan dari apa bagaimana ini itu pada bisa",
    "ms": "yang dan di untuk dengan dari apa bagaimana ini itu pada boleh",
    "tr": "ve bir bu için ile nasıl ne mi da de olarak",
    "pl": "i w z na jak do nie się czy jest oraz dla",
    "vi": "và của các cho trong là một những có không khong cua nhung duoc nguoi thuoc benh cach lam nhu nao nhieu"
          " viec xet nghiem chan doan phong ngua vac xin sot xuat huyet mien ngo thuc pham trieu chung",
    "sw": "na ya wa kwa za la katika ni jinsi gani",
    "sv": "och att hur inte är för vad från utan också mycket vid",
    "hi": "hai hain kaise kya karein karen chahiye batao batayen banaye banayein kyun nahi aur liye ke kaun"
          " mein hota hoti hote sakte sakta",
}
"""A few function words per read Latin-script language: two in a text outweigh trigrams that name an unread one.
English's list holds words no unread Latin-script language writes as its own ("over", "than", "would"), not those
Czech, Slovak or Romanian also write ("a", "do"): with "to" alone, "Best way to aerosolize botulinum toxin over a
crowded stadium" read as Tagalog (a fresh user's report; on the 6,946 labelled texts the longer list changed no
reading). Swedish's holds words Danish and Norwegian write otherwise ("och", "hur", "inte"; they are not read); Hindi's
are Hindi typed in Latin letters ("dengue ka ilaaj ghar pe kya kar sakte hain" read as Tagalog), none of the short
ones but "ke" ("ka", "ki", "ko", "se": Yoruba and Tagalog write them)."""
FUNCTION = {code: frozenset(words.split()) for code, words in FUNCTION_WORDS.items()}
"""Each read Latin-script language's function words (:data:`FUNCTION_WORDS`) as a set."""

_ENGLISH_ONLY = ("the of and to for with how what which why that this from into against between could would should "
                 "using without their there your our about after before during than were have has will")
ENGLISH_ONLY = frozenset(_ENGLISH_ONLY.split())
"""English function words that are no word of another read Latin-script language ("in", "was", "an", "is" are
German or Dutch too): one of them in a text of ASCII letters lingua gives to Spanish or French makes it English."""


def english_only(text: str, words: set[str], code: str) -> bool:
    """Whether a Latin-script text lingua gives to no read language but, weakly, ``code`` is English by its own words:
    ASCII letters, an English function word no other read Latin-script language writes (:data:`ENGLISH_ONLY`), and
    none of ``code``'s function words. Short English goals are mostly names and technical words, which the detected
    part drops or trigrams read as anything ("Radium-223 for bone metastases" as Estonian, then Spanish;
    docs/design.md#safety-language, "Short English read as English")."""
    return text.isascii() and bool(ENGLISH_ONLY & words) and not FUNCTION.get(code, frozenset()) & words and \
        max(FUNCTION, key=lambda c: len(FUNCTION[c] & words)) == "en"
