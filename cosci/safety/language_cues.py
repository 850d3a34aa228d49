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
  "ğ" Turkish). A text showing one is not believed unread on lingua's trigrams alone; an unread language's own cues
  (:func:`cosci.safety.language.unread_cues`: Czech, Romanian, Tagalog letters and function words) are read first
  and still decide.
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
