"""One sentence end for every reader of the screen (:data:`cosci.safety.text.SENTENCE_END`): the sentences of a text,
its windows, a condition's sentence and the sentences of a mechanism asked are cut at the same marks, in every script
the screen reads. Texts written for this test, none copied from a labelled set (docs/design.md#safety-language, "One
sentence end")."""

from __future__ import annotations

import pytest

from cosci.safety.prescreen import Prescreen, load_prescreen, normalise
from cosci.safety.text import SENTENCE_END, sentences, windows

SPLIT = [  # a text of two sentences in each script, and the two sentences
    ("The sample arrived late. It was stored at 4 °C.", ["The sample arrived late.", "It was stored at 4 °C."]),
    ("样本到得很晚。它保存在冰箱里。", ["样本到得很晚。", "它保存在冰箱里。"]),
    ("検体が遅れて届いた。冷蔵庫に保管した。", ["検体が遅れて届いた。", "冷蔵庫に保管した。"]),
    ("샘플이 늦게 도착했다. 냉장고에 보관했다.", ["샘플이 늦게 도착했다.", "냉장고에 보관했다."]),
    ("नमूना देर से पहुँचा। उसे फ्रिज में रखा गया।", ["नमूना देर से पहुँचा।", "उसे फ्रिज में रखा गया।"]),
    ("نمونہ دیر سے پہنچا۔ اسے فریج میں رکھا گیا۔", ["نمونہ دیر سے پہنچا۔", "اسے فریج میں رکھا گیا۔"]),
    ("لماذا تأخرت العينة؟ حفظناها في الثلاجة.", ["لماذا تأخرت العينة؟", "حفظناها في الثلاجة."]),
    ("Γιατί άργησε το δείγμα; Το φυλάξαμε στο ψυγείο.", ["Γιατί άργησε το δείγμα;", "Το φυλάξαμε στο ψυγείο."]),
    ("Նմուշը ուշ հասավ։ Այն պահեցինք սառնարանում:", ["Նմուշը ուշ հասավ։", "Այն պահեցինք սառնարանում:"]),
    ("ናሙናው ዘግይቶ ደረሰ። በማቀዝቀዣ ውስጥ አስቀመጥነው።", ["ናሙናው ዘግይቶ ደረሰ።", "በማቀዝቀዣ ውስጥ አስቀመጥነው።"]),
    ("ნიმუში დააგვიანდა. მაცივარში შევინახეთ.", ["ნიმუში დააგვიანდა.", "მაცივარში შევინახეთ."]),
    ("为什么这么晚?然后放进冰箱", ["为什么这么晚?", "然后放进冰箱"]),  # "？" as NFKD writes it
    ("We waited… then the courier came.", ["We waited…", "then the courier came."]),
    ('She wrote "done." Then she left.', ['She wrote "done."', "Then she left."]),
    ("• first item • second item", ["• first item", "• second item"]),
    ("line one\nline two", ["line one", "line two"]),
]

KEPT = [  # marks that end no sentence
    "Im 19. Jahrhundert wütete die Cholera in Hamburg.",  # an ordinal
    "U 19. stoljeću kolera je harala gradovima.",
    "Dose 2.5 mg/kg, e.g.the usual one",  # a decimal, an abbreviation run on
    "Kiểm tra mẫu lúc 3.5 giờ",
    "ตัวอย่างมาถึงช้า เราเก็บไว้ในตู้เย็น",  # Thai writes no sentence mark: one sentence
    "Nipah: which antivirals are in trials?",  # a label's colon is no end
    "ボツリヌス・トキシンの歴史",  # the middle dot joins a name
]


@pytest.mark.parametrize(("text", "expected"), SPLIT)
def test_sentences_are_cut_at_each_script_s_end(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize("text", KEPT)
def test_marks_that_end_no_sentence(text: str) -> None:
    assert sentences(text) == [text]


def test_windows_cut_at_the_same_ends_and_at_clause_marks() -> None:
    text = "一。二。三。四。"
    assert windows(text) == ["一。 二。 三。", "二。 三。 四。"]
    assert windows("a; b: c. d") == ["a; b: c.", "b: c. d"]
    assert windows("أ؛ ب؛ ج؛ د") == ["أ؛ ب؛ ج؛", "ب؛ ج؛ د"]  # the Arabic semicolon as ";"


def test_the_end_is_the_mark() -> None:
    """The conditional reader asks where the mark stands (its condition ends before it)."""
    m = SENTENCE_END.search("अगर नमूना खो जाए। फिर")
    assert m is not None and m.group() == "।"
    assert SENTENCE_END.search("दवा 2.5 मिलीग्राम") is None


@pytest.fixture(scope="module")
def prescreen() -> Prescreen:
    return load_prescreen("safety_prescreen.yaml")


@pytest.mark.parametrize("text", [
    "अगर प्रयोगशाला से प्लेग का नमूना गायब हो जाए तो अस्पताल को क्या करना चाहिए। कर्मचारी कैसे सुरक्षित रहें?",
    "اگر لیبارٹری سے طاعون کا نمونہ غائب ہو جائے تو ہسپتال کو کیا کرنا چاہیے۔ عملہ کیسے محفوظ رہے؟",
])
def test_a_condition_ends_at_its_script_s_full_stop(prescreen: Prescreen, text: str) -> None:
    """The condition's sentence ends at "।" or "۔": what follows is a second sentence (``rest``), not the main
    clause's continuation."""
    assert prescreen.conditions is not None
    parts = prescreen.conditions.split(normalise(text))
    assert parts is not None
    assert parts[3], parts
