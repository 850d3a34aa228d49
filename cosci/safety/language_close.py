"""The close languages of short texts: Danish and Norwegian beside Swedish and English, Croatian and Bosnian beside
Malay and English, Slovak beside Czech, and Finnish, Hungarian, Estonian and Slovene beside them all
(docs/design.md#safety-language, "Close languages on short texts"; Finnish and Hungarian read since "Finnish and
Hungarian read").

lingua's trigrams, in the low-accuracy mode :mod:`cosci.safety.language` uses, read a short text of these
languages typed without diacritics as a read language they are not: "kako napraviti sarin kod kuce" (Croatian) as
Bosnian at 0.72 and then English by default, "hvordan lager man sarin hjemme" (Norwegian) as English,
"rabiesrokote koirille" (Finnish) as English, "kolera kezelese gyerekeknel" (Hungarian) as Turkish. A text read in a
language it is not is read by the wrong language's function words and the rules measured on another language: for an
unread language a silent pass. So each of these languages' own function words (:data:`CLOSE_WORDS`: words no read
Latin-script language writes as its own, typed with or without diacritics) name a short text's language when they
outnumber every read language's own words in it (:func:`close_language`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import ConfidenceValue

CLOSE_WORDS = {
    "da": "hvad hvorledes af uden gør gøre mængder maengder mod",
    "nb": "hva uten gjor gjore gjør gjøre mengder",
    "hr": "napraviti nakon što trovanje trovanja otrovati učiniti uciniti lijek djece djeca zasto zašto kod koji koja"
          " koje koliko moze može mogu zelim želim ljudi ljude ljudima kuce kuće"
          " protiv liječenje lijecenje između izmedu izmedju",
    "bs": "napraviti nakon što trovanje trovanja otrovati učiniti uciniti lijek djece djeca zasto zašto kod koji koja"
          " koje koliko moze može mogu zelim želim ljudi ljude ljudima kuce kuće"
          " protiv liječenje lijecenje između izmedu izmedju",
    "sk": "ako pre alebo sme chcem potrebujem ludia ľudia ludi ľudí ludom ľuďom tiez tiež najviac"
          " preco prečo ktory ktorý ktora ktorá ktore ktoré urobit urobiť spravit spraviť liecba liečba",
    "fi": "miten miksi kuinka etta että mita mitä mika mikä mitka mitkä voiko voinko kotona salaa huomaamatta"
          " hoito hoidon jalkeen jälkeen kanssa aikana",
    "hu": "hogyan miert miért hogy egy vagy milyen melyik lehet kell otthon titokban kezelese kezelése és között"
          " kozott nélkül nelkul számára szamara",
    "et": "kuidas miks kodus kuidagi",
    "sl": "zakaj kje kdaj tudi lahko oziroma narediti",
}
"""Per close language (lingua's ISO 639-1 code), its own function words and a few words of a request, with and
without diacritics: none is a word of a read Latin-script language. Danish's and Norwegian's shared words
("hvordan", "hvorfor", "ikke", "jeg") are in :data:`SHARED_WORDS`, not here; Croatian and Bosnian write the same
words (lingua names either). "mod", "kan", "man", "efter", "mot", "som", "gor" are Swedish too, "laver" and "lave"
French, "lager" English and German, "nem" Portuguese, "es" Spanish, "tai" Vietnamese, "treba" Slovak, "chceme"
Czech: left out
("ako" is also Tagalog's "I", "pre" Romanian's "towards": the read languages' own words count against them)."""
SHARED_WORDS = {("da", "nb"): "hvordan hvorfor hvilke hvilken ikke jeg ogsa også meget hjemme derhjemme bør til",
                ("hr", "bs", "sl"): "kako"}
"""Words two close languages write alike: a cue of the pair, whose language lingua's likelier of the two names."""
CLOSE_NAMES = {"da": "Danish", "nb": "Norwegian", "hr": "Croatian", "bs": "Bosnian", "sk": "Slovak", "fi": "Finnish",
               "hu": "Hungarian", "et": "Estonian", "sl": "Slovene"}
"""The close languages' names (the read ones are also in :data:`cosci.safety.language.READ`)."""
CZECH_TOO = frozenset(["vyrobit", "ziskat", "zvysit", "pripravit", "rozsirit", "nakazit", "otravit", "pustit",
                       "vypustit"])
"""Verbs Slovak writes as Czech does once typed without diacritics: cues of Czech
(:data:`cosci.safety.language_cues.OWN_WORDS`) that count against no close language."""
_OWN = {code: frozenset(words.split()) for code, words in CLOSE_WORDS.items()}
_SHARED = {pair: frozenset(words.split()) for pair, words in SHARED_WORDS.items()}


def close_counts(words: set[str]) -> dict[str, int]:
    """Per close language, how many of its own words (:data:`CLOSE_WORDS`, and its pair's shared ones) ``words``
    (a text's lower-cased words) holds."""
    counts = {code: len(own & words) for code, own in _OWN.items()}
    for group, shared in _SHARED.items():
        n = len(shared & words)
        for code in group:
            counts[code] += n
    return counts


def close_language(words: set[str], rivals: int, ranked: list[str]) -> str | None:
    """The close language a text's own words name, or None: the language with most own words (:func:`close_counts`)
    when it has more than ``rivals`` (the most function words any read language other than these shows in the text),
    or as many while lingua's likeliest language is it ("miksi ... on": Finnish's "why" and English's "on");
    among tied close languages the one lingua ranks first (``ranked``: lingua's languages for the text, likeliest
    first, as lower-case ISO 639-1 codes), else the first of :data:`CLOSE_WORDS`'s order."""
    counts = close_counts(words)
    best = max(counts.values())
    tied = [c for c in counts if counts[c] == best]
    if best == 0 or best < rivals or (best == rivals and (not ranked or ranked[0] not in tied)):
        return None
    return next((c for c in ranked if c in tied), tied[0])


CLOSE_MIN_CONFIDENCE = 0.7
"""lingua's confidence from which a close read language (Danish, Norwegian, Slovak, Croatian, Bosnian) is believed
for a text showing none of its own words and no function word of another read language."""
READ_CLOSE = frozenset({"da", "nb", "nn", "sk", "hr", "bs", "fi", "hu"})
"""The close languages the screen reads (``nn``, Nynorsk, is Norwegian's second written form; Finnish and Hungarian
since the fifteenth stop, their stems and suffixes glossed: docs/design.md#safety-language, "Finnish and Hungarian
read")."""
ALPHABETS = {"da": "æøåé", "nb": "æøåéèóô", "nn": "æøåéèóô", "sk": "áäčďéíĺľňóôŕšťúýž", "hr": "čćđšž",
             "bs": "čćđšž", "fi": "äöåšž", "hu": "áéíóöőúüű"}
"""The letters beyond ASCII each close read language writes: a text with another ("ı", "ü", "ñ") is not in it
(lingua read the Turkish "bruselloz hızlı test guvenilir mi?" as Norwegian at 0.74)."""


SHOWN_LETTERS = {"fi": "äö", "hu": "áéíóöőúüű"}
"""Letters a Finnish or Hungarian text shows for lingua's choice alone (no own word of :data:`CLOSE_WORDS`) to be
believed: lingua's trigrams took the Indonesian "Meningkatkan hasil produksi vaksin rotavirus lokal di Bio Farma." for
Finnish at 0.94 (docs/design.md#safety-language, "Finnish and Hungarian read")."""
FINNISH_ENDINGS = re.compile(r"\w{3,}(?:lla|lta|ssa|sta|iden|inen|minen|ksen|aan|eita|sten|nnan|nnon)$")
"""Finnish case endings, the verbal noun's "-minen" and the adjective's "-inen": a word ending so stands for its
letters in a text typed without "ä" and "ö" ("Kyyn puremat lapsilla: milloin vastamyrkky?")."""


def shown(code: str, words: set[str]) -> bool:
    """Whether ``words`` show ``code``'s letters (:data:`SHOWN_LETTERS`; for Finnish, or one :data:`FINNISH_ENDINGS`);
    True for a language without such letters listed."""
    if code not in SHOWN_LETTERS:
        return True
    lettered = any(ch in SHOWN_LETTERS[code] for w in words for ch in w)
    return lettered or (code == "fi" and any(FINNISH_ENDINGS.match(w) for w in words))


def written_in(code: str, words: set[str]) -> bool:
    """Whether every letter of ``words`` beyond ASCII is one ``code`` writes (:data:`ALPHABETS`)."""
    return all(ch.isascii() or not ch.isalpha() or ch in ALPHABETS[code] for w in words for ch in w)


def unsupported_close(values: list[ConfidenceValue], words: set[str], rivals: int) -> list[ConfidenceValue]:
    """lingua's ``values`` for a Latin-script text without the close read languages (:data:`READ_CLOSE`) whose own
    words (:data:`CLOSE_WORDS`) the text does not show, unless lingua's likeliest is one of them at
    :data:`CLOSE_MIN_CONFIDENCE` or more and no other read language's function word is in the text (``rivals``,
    their most in it): their trigrams took German, Dutch, Indonesian and Spanish goals ("Wie verursacht Shiga-Toxin
    das hämolytisch-urämische Syndrom?" as Slovak at 0.89), and such a text is read as it was before they were."""
    counts = close_counts(words)
    own = {code: counts["nb" if code == "nn" else code] for code in READ_CLOSE}
    top = values[0].language.iso_code_639_1.name.lower() if values else ""
    if top in READ_CLOSE and (own[top] or (rivals == 0 and values[0].value >= CLOSE_MIN_CONFIDENCE and
                                           shown(top, words))) and \
            written_in(top, words):
        return values
    rest = [v for v in values if (c := v.language.iso_code_639_1.name.lower()) not in READ_CLOSE
            or (own[c] and written_in(c, words))]
    return rest or values


def close_reading(script: str, words: set[str], values: list[ConfidenceValue],
                  read_words: list[frozenset[str]]) -> tuple[tuple[str, str, bool, float] | None,
                                                             list[ConfidenceValue]]:
    """For a Latin-script text (``script``; another is returned as it is): the close language its own words name
    (:func:`close_language`) as ``(code, name, read, lingua's confidence)``, or None; and lingua's ``values`` without
    the close read languages it does not support (:func:`unsupported_close`). ``read_words``: each read language's
    own words; Czech's verbs Slovak shares (:data:`CZECH_TOO`) and one-letter words (Polish "i" is Danish too) count
    for none, and words of two letters ("na", "do") not against a close language lingua names."""
    if script != "LATIN":
        return None, values
    rivals = max(len(w & {x for x in words - CZECH_TOO if len(x) > 1}) for w in read_words)
    values = unsupported_close(values, words, max(len(w & {x for x in words if len(x) > 2}) for w in read_words))
    code = close_language(words, rivals, [v.language.iso_code_639_1.name.lower() for v in values])
    if code is None or (code in ALPHABETS and not written_in(code, words)):  # Czech's "ě" is not Slovak's
        return None, values
    value = next((v.value for v in values if v.language.iso_code_639_1.name.lower() == code), 0.0)
    return (code, CLOSE_NAMES[code], code in READ_CLOSE, value), values
