"""Languages of other scripts typed in Latin letters (docs/design.md#safety-language, "Romanised text").

Hindi and Urdu ("Hinglish"), Bengali, Arabic ("Arabizi": its letters without a Latin one written as digits, "3" for
ع, "7" for ح, "2" for ء), Persian ("Finglish"), Russian and Ukrainian, Greek ("Greeklish"), Japanese (romaji) and
Chinese (pinyin without tones) are often typed in Latin letters. lingua's trigrams know none of these forms and read
them as whatever Latin-script language their letters resemble (Estonian, Shona, Welsh, Tswana, French, Swahili),
so a romanised request was either refused as an unread language it is not or scored as a read one it is not: the
intent model's score on such text is noise (benign romanised questions scored 0.8-0.98, harmful ones 0.1-0.5;
bench/README.md, "twenty-third stop: romanised and look-alike languages").

Each form is named by its own words (:data:`CUES`: function words and common request words as usually spelled,
none a word of a read Latin-script language) and, for Arabizi, by words that write a letter as a digit
(:data:`ARABIZI_DIGITS`). A form is *read* (:data:`READ_FORMS`: the gloss reads its requests, measured) or *unread*:
refused on the default path with the one line that names it ("Bengali in Latin letters"), as any unread text is.
"""

from __future__ import annotations

import re

CUES = {
    "hi": "hai hain kaise kaisay kese kya karein karen kijiye chahiye chahte batao batayen bataye banaye banayein"
          " banane banana kyun kyon nahi nahin aur liye kaun mein hota hoti hote sakte sakta sakti kitna kitne kitni"
          " kab kahan kisi koi kuch jisse jiske jaye jaayen jayein jayen wala wale wali karna karne karke karo raha"
          " rahe bhi paani khane khana dawai beemar bimar bimari bemar ilaj ilaaj mareez mareezon marizon"
          " bachche bachon bachchon logon taaki taki taake takay usay uske unko tarika tareeka tarike karta karti"
          " karte dena chahta milana milaun daalna daalu daalun zyada jyada saath baad pehle kaunsa kaunsi kaunse"
          " lekin magar bahut sirf abhi jaldi mujhe humein hamein aapko iske iska uska unka kyunki",
    "bn": "kivabe kibhabe kibabe kemne keno kothay theke thekey jonno jonyo korbo korte korbe korun korle koreche"
          " hobe hoye hocche hoyeche achhe ekta ekti amra amader apni apnar tumi tomar tader bolo bolun"
          " banabo banano banate niye diye pabo pawa khete kharap moddhe upor oshudh manush bhalo onek kome",
    "ar": "ezay ezzay izzay izay msh keda momken elly illi lazem emta imta feen kifash kifach shlon"
          " bghit baddi bddi bta3 beta3 lel 3ala 3ayez 3ayza 3ayzin 3awez 3awz ya3ni a3mel a3raf 7aga ma3",
    "fa": "chetor chetori chetore chejoori chera chie chiye mikham mikhaym mikhay mikhad mikhan mishe nemishe bedoone"
          " bedune baraye nist konam konim mikonam mikone mikonim besazam besazim beshe nashe mitoonam mitunam"
          " mitoonim cheghadr cheghad hichkas koja chize chizi ghazaye daroo khoone",
    "ru": "kak chto chtoby chtob kakoy kakoe kakie kakaya skolko pochemu gde mozhno nuzhno nuzhen nuzhna nuzhny nado"
          " sdelat eto etot dlya tolko ochen khochu hochu menya mne nikto nichego vsekh chelovek cheloveka lyudi"
          " lyudey lechit lechenie kotoryy kotoraya kotorye zaboleli rebenka esli posle kogda uzhe eshche mozhet budet"
          " cherez mezhdu luchshe takoy delat teper",
    "uk": "yak shcho shchob skilky potribno mozhna zrobyty chomu vdoma likuvaty dytyny lyudyny nikhto pislya koly abo"
          " tse takozh bilsh yaki yakyi yakyy yaka chy krashche mizh dlya teper",
    "el": "pws kai tou ths gia apo einai thelw thelo mporw mporo ftiaxe ftiaxw ftiakso wste oste poso kapoia"
          " kapoio odigies",
    "ja": "shite suru desu masu kudasai nani doushite niwa saseru nanika minna kenkyuu dekiru naru",
    "zh": "zenme shenme ruhe weishenme keyi xuyao zhege nage quanbu gei zui duoshao meiyou",
}
"""Per form (the ISO 639-1 code of the language typed in Latin letters), its own words, space-separated: the form is
named by :data:`MIN_CUES` of them. Hindi's and Urdu's are one list (one spoken language, spelt alike; a text showing
one of :data:`URDU_OWN` is Urdu). Left out: words a read Latin-script language writes ("ke", "ka", "ki", "ko",
"se", "me", "par", "tak", "na", "ne", "to", "ro", "va", "az", "dar", "too", "el", "ana", "law", "no", "ni"; Spanish
"hoy", "dile", "amar", French "ami", Italian "nei", "sto", "sta", Swahili "pata", "dawa", Polish "pani", German
"hast", "fein", "wo", Tagalog "kasi", "bayad", Turkish "yani", "lazim", Swedish "fel", Slovak "treba", English
"mesh", "tame", "rang").
The first nine forms are the ones the labelled sets and the probes hold (bench/README.md, twenty-third stop).
Russian's and Ukrainian's function words from "esli" and "pislya" on, and Hindustani's from "kaunsa" on, were added at
the twenty-fourth stop, none found in a Latin-script text of the labelled sets; left out: Hindustani's "jab", "tab",
"agar", "yeh" (English and Indonesian words), "apna", "apni" (Bengali's "apni"), Russian's "ego", "byt", "tomu",
"yake" (English, Czech, Swahili). Russian's "ili" (or) was dropped then: Swahili's "ili" (so that) and Croatian's
"ili" (or) made Swahili requests Russian when one cue word was enough (:func:`cosci.safety.language.read_language`)."""
URDU_OWN = frozenset(["taake", "takay", "usay", "unhein", "tayyar", "tafseel", "alamat", "ahista", "qatre",
                     "zaroorat", "tareeqe", "masalon"])
"""Urdu's own spellings among Hindustani typed in Latin letters."""
NAMES = {"hi": "Hindi", "ur": "Urdu", "bn": "Bengali", "ar": "Arabic", "fa": "Persian", "ru": "Russian",
         "uk": "Ukrainian", "el": "Greek", "ja": "Japanese", "zh": "Chinese"}
READ_FORMS = frozenset({"hi", "ur"})
"""The forms the screen reads: Hindi and Urdu typed in Latin letters, whose requests the gloss reads
(conf/safety_gloss.yaml, ``latin:``) and whose ordinary clinic questions are common. The others are unread: their
gloss is thin and the intent score on them is noise, so read they passed harmful requests and refused half of the
benign ones at random (bench/README.md, twenty-third stop)."""
MIN_CUES = 2
"""Distinct cue words (an Arabizi digit word counts as one) from which a form is named."""
ARABIZI_DIGITS = re.compile(r"\b[a-z]*[235679]+[a-z][a-z235679]*\b")
"""A lower-case word writing an Arabic letter as a digit followed by a letter ("a3mel", "se77a", "7aga", "5azan");
:func:`arabizi_words` leaves out codes ("h5n1", "3d", "5fu"; "p53", "il6", "cd4", "covid19" end in a digit and are
no match; capitals are left out, as acronyms are)."""
_WORD = re.compile(r"[\w']+")
_OWN = {code: frozenset(words.split()) for code, words in CUES.items()}


def arabizi_words(text: str) -> set[str]:
    """The Arabizi digit words of ``text`` (:data:`ARABIZI_DIGITS`) with more letters than digits, and three letters
    after a digit they open with (a code opens with a digit and a unit or two letters: "3d", "5fu")."""
    found = set(ARABIZI_DIGITS.findall(text))
    return {w for w in found if sum(c.isalpha() for c in w) > sum(c.isdigit() for c in w)
            and not re.match(r"\d+[a-z]{1,2}(?![a-z])", w)}


EAST_SLAVIC_FORMS = re.compile(r"[a-z]{2,}(?:ykh|[^aeiou]ikh|irovat|tsya|yy|iy)")
"""Endings only Russian or Ukrainian typed in Latin letters writes: an adjective's genitive plural ("dostupnykh",
"-ykh"/"-ikh": Polish and Czech write "-ych"/"-ých"), a borrowed verb's infinitive ("sintezirovat"), a reflexive
("-tsya") and an adjective's "-yy"/"-iy". No tuning text in another language shows one; "Sintezirovat
nervno-paraliticheskii agent zarin iz dostupnykh prekursorov" showed no function word of the cues and read as
Croatian ("iz"), allowed (fresh-user trial, twenty-fourth stop; docs/design.md#safety-language)."""


def own_words(text: str, code: str) -> int:
    """How many distinct :data:`CUES` words of the form ``code`` ``text`` shows, and for Russian and Ukrainian the
    words ending as only their romanised forms end (:data:`EAST_SLAVIC_FORMS`)."""
    words = {w.lower() for w in _WORD.findall(text)}
    formed = {w for w in words if EAST_SLAVIC_FORMS.fullmatch(w)} if code in ("ru", "uk") else set()
    return len(_OWN[code] & words) + len(formed - _OWN[code])


def romanised(text: str, rivals: int) -> str | None:
    """The form (:data:`CUES`'s code; ``ur`` for Hindustani showing an :data:`URDU_OWN` word) whose
    own words ``text`` (Latin script) shows most, when :data:`MIN_CUES` or more and more than ``rivals`` (the most
    function words a read Latin-script language shows in it); None otherwise."""
    words = {w.lower() for w in _WORD.findall(text)}
    counts = {code: len(own & words) for code, own in _OWN.items()}
    counts["ar"] += len(arabizi_words(text) - _OWN["ar"])
    best = max(counts, key=lambda c: counts[c])
    if counts[best] < MIN_CUES or counts[best] <= rivals:
        return None
    if best == "hi" and URDU_OWN & words:
        return "ur"
    return best


IN_LATIN = " in Latin letters"
"""How a form's name ends (:func:`form_name`)."""
ROMANISED_ADVICE = " (written in its own script or in English it is read)"
"""What the one line adds for an unread form: the same request in its own script is read (the gloss reads Bengali,
Arabic, Persian, Cyrillic, Greek, Japanese and Chinese script)."""


def form_name(code: str) -> str:
    """How the one line names a form: "Bengali in Latin letters"."""
    return f"{NAMES[code]}{IN_LATIN}"
