"""Readings of a request beyond its terms: what a harmful step is said of, what the request is for, and what its
object is (split from :mod:`cosci.safety.prescreen`, whose :class:`~cosci.safety.prescreen.Prescreen` inherits them).

- a resistance step said of a mechanism, not asked for (:meth:`Readings.describes`);
- basic chemistry: a synthesis or stabilisation of an object that is no threat (:meth:`Readings.basic_chemistry`);
- a harmful step asked for outright, an imperative harmful verb opening the request (:meth:`Readings.asks`);
- the protective purposes a request states and its opening cover story (:meth:`Readings.purposes`, ``cover``);
- a *remedy*: the request is itself a countermeasure or oversight (a countermeasure made, a treaty verified, a site
  decontaminated, a population vaccinated, an isotope made for medicine) and asks for no weapon use
  (:meth:`Readings.remedies`); the agent rule and the no-agent rule do not act on it (docs/design.md#safety-screen).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

from cosci.safety.how import asks_how
from cosci.safety.nominal import constructed, intruded, trial_described
from cosci.safety.text import SENTENCE_END, Span, cut, normalise, windows

ASKED_WORDS = 4
"""Words between an opening harmful verb and a term hit's step for it to be the one asked (:meth:`Readings.asks`)."""
METHOD_WORDS = 4
"""Words between a methods word and the severe step it is for ("the published methods for increasing the lethality
of ..."), or (three at most) between the step and a methods word after it, verb-final (:meth:`Readings.reviews`)."""
_WORKED = re.compile(r"\s*(?:have |has |had |were |was |are |is )?(?:been |proved |proven )?(?:the )?"
                     r"(?:most |more |best )?(?:effective|successful|efficient|reliable|useful)(?: \S+)?"
                     r" (?:at|in|for)\s*$")
"""A gap that says how well the methods worked ("which techniques have been most effective at increasing ..."): a
ranking of the methods, read at any length up to the step (:meth:`Readings.reviews`)."""
_WHY = re.compile(r"\bwhy\b(?![\s?？]*$)")
"""A "why" that is not its sentence's last word ("... and no one will understand why?" asks nothing)."""
_QUESTION_END = ("?", "？", "؟", "か", "か。", "吗", "呢", "까")
_WHY_UNMARKED = re.compile(r"^\W*(?:\d{3,4}\W+)?why\b|\bwhy(?: [^\W\d_][^\s?？؟]*){1,4}[\s.।]*$")
"""A why-question written without its question mark: the why opens the clause (after a year at most, "למה מגפת ..."
as glossed) or stands before at most four closing words, as verb-final languages ask ("... इतना घातक क्यों था", "...
neden bu kadar ölümcüldü"; design.md#safety-screen, "A why-question without its question mark")."""
_NOT_KNOWN = re.compile(r"\b(?:no one|nobody|noone|anyone|anybody|without|so that|such that|knows?|understands?|"
                        r"finds? out|figures? out|notices?|tells?|nadie|nessuno|personne|niemand|ninguem|nikt|kimse)\b")
"""Before an unmarked why, what makes it the object of a concealment ("so that no one knows why it happened")."""
_HOW = re.compile(r"\bhow (?:to|can|could|do|does|would|should)\b|\bi want to\b|\bhelp me\b")
"""A how-question or request around the "why": the sentence asks for a way, the why is inside it."""
_CLAUSE = re.compile(r"[;:]")
"""A clause's end besides a sentence's (:data:`~cosci.safety.text.SENTENCE_END`, which leaves the dot of an ordinal
of one or two digits: "u 19. stoljecu", "im 19. Jahrhundert", the century of a why-question about a past epidemic)."""


class Terms(Protocol):
    """A compiled term list (:class:`cosci.safety.prescreen.Terms`)."""

    def spans(self, text: str) -> list[Span]: ...

    def first(self, text: str) -> Span | None: ...


class Rule(Protocol):
    """A category's lists (:class:`cosci.safety.prescreen.Rule`)."""

    @property
    def agents(self) -> Terms: ...

    @property
    def enhancements(self) -> Terms: ...

    def named(self, text: str) -> list[Span]: ...


class Readings:
    """The readings, over the term lists a :class:`~cosci.safety.prescreen.Prescreen` holds."""

    rules: Mapping[str, Rule]
    protective: Terms
    not_protective: Terms
    framing: Terms
    operational: Terms
    mechanism: Terms
    explained: Terms
    resistance: Terms
    engineering: Terms
    chemistry: Terms
    harm_objects: Terms
    countermeasures: Terms
    remedy_terms: Terms
    weapon_use: Terms
    instruments: Terms
    therapies: Terms
    trialled: Terms
    intent: Mapping[str, Terms]
    asked: re.Pattern[str] | None
    """A window that opens with an imperative harmful verb, after a request opener at most (``asked`` in the term
    file; :meth:`asks`)."""
    asked_inside: re.Pattern[str] | None
    """A request opener and its harmful verb anywhere in a window ("so we need the exact steps to make ..."): read
    for a severe step only (:meth:`asks`)."""
    studied: re.Pattern[str] | None
    """What, right after a step, makes it the name of what is studied ("transmissibility estimates"; :meth:`asks`)."""
    asked_last: re.Pattern[str] | None
    """A window that closes with a harmful verb, a request closer after it at most (a verb-final request; ``asked``
    in the term file, :meth:`asks`)."""
    nominal: tuple[re.Pattern[str], re.Pattern[str]] | None
    """``asked`` and ``asked_last`` with the action's nouns: a noun-phrase request (:mod:`cosci.safety.nominal`)."""
    severe: re.Pattern[str] | None
    """Steps no stated purpose excuses when asked outright (``asked.severe``; :meth:`pressed`)."""
    excused: re.Pattern[str] | None
    """Therapies whose agent is the one made stronger (``asked.excused``: an oncolytic virus; :meth:`pressed`)."""
    methods: re.Pattern[str] | None
    """Words naming methods, approaches or techniques, as each read language writes or glosses them
    (``asked.methods``; :meth:`reviews`)."""
    raisers: re.Pattern[str] | None
    """Verbs that raise a capability or confer one, in any inflection ("increasing", "made"; ``asked.raisers``;
    :meth:`reviews`)."""

    def describes(self, window: str, step: str, start: int) -> bool:
        """Whether the harmful step ``step`` at ``start`` of a normalised window is resistance or escape
        (``resistance``) said of a mechanism, not asked for: its subject is a relative clause on mutations, genes,
        variants or mechanisms in the indicative ("the mutations that make M. tuberculosis resistant to
        bedaquiline", ``mechanism``, matched up to the step), and nothing in the window puts such changes into an
        agent or asks which would work (``engineering``: "introduce the mutations that ...", "would"). Resistance
        research is written this way; a request to make an agent resistant has the agent, or the changes to make, as
        its object. Transmissibility, host range and virulence are never read so: which changes make an agent
        airborne is the enhancement itself (docs/design.md#safety-screen, "Mechanism and object"). Any step is said, not
        asked, when the text before it in its sentence asks why or what made it so (``explained``: "why the 1918
        influenza was so lethal", "which mutations made Omicron more transmissible"): a question on pathogenesis or
        history, unless the window also puts changes into an agent (``engineering``)."""
        before = window[:start]
        return ((bool(self.resistance.first(step)) and bool(self.mechanism.first(before)))
                or bool(self.explained.first(before))) and not self.engineering.first(window)

    def asks(self, text: str, severe: bool = False, named: bool = False) -> bool:
        """Whether a window of ``text`` asks for a harmful step outright: a term hit's step (:meth:`steps`, not
        followed by what is studied) starts within :data:`ASKED_WORDS` words after an imperative harmful verb that
        opens the window (:attr:`asked`: "increase the lethality of Nipah virus", "how to weaponize tularemia"), or
        ends within as many words before one that closes it (:attr:`asked_last`: a verb-final request, "die
        Letalität des Nipah-Virus erhöhen", "ニパウイルスの致死率を上げる" as glossed; docs/design.md#safety-screen,
        "Asked outright"). A step of :attr:`severe` also counts after a request opener and its verb anywhere in
        the window (:attr:`asked_inside`): a cover story before the request ("We work on epidemic protection, so we
        need the exact steps to make Ebola escape the vaccine") or an ordinary aim before it ("we study its
        proteins, and we also want to make it escape PCR tests") does not hide the step
        (docs/design.md#safety-screen, "The step decides, after a cover story"; "The last clause"), and so does one
        whose methods are asked about (:meth:`reviews`). ``severe``: only a step of :attr:`severe` counts;
        ``named``: the text names an agent of concern, so a request as a noun phrase counts (:attr:`nominal`)."""
        if self.asked is None or (severe and self.severe is None):
            return False
        first, last = self.nominal if named and self.nominal is not None else (self.asked, self.asked_last)
        for window in windows(normalise(text)):
            opening, closing = first.match(window), last.search(window) if last is not None else None
            # a request opener and its verb anywhere: asks for a severe step after it, with or without a cover story
            inside = [m.end() for m in self.asked_inside.finditer(window)] if self.asked_inside else []
            reviewed = self.methods is not None and bool(self.methods.search(window))
            if opening is None and closing is None and not inside and not reviewed:
                continue
            for rule in self.rules.values():
                for step, start, end in self.steps(rule, window)[1]:
                    if (self.studied and self.studied.match(window, end)) or (
                            severe and self.severe is not None and not self.severe.search(step)):
                        continue
                    if (reviewed and self.reviews(window, step, start, end)) or self.asked_after(
                            window, step, start, inside):
                        return True
                    if opening is not None and len(window[opening.end():start].split()) <= ASKED_WORDS:
                        return True
                    if closing is not None and start <= closing.start() and (
                            end >= closing.start() or len(window[end:closing.start()].split()) <= ASKED_WORDS):
                        return True
        return False

    def constructs(self, text: str) -> bool:
        """Whether a window of ``text`` asks for a biological intent phrase's trait (a disease made to stay in the air,
        strains selected to escape tests) in its request form (:func:`~cosci.safety.nominal.constructed`), attacks a
        device or a supply system in its request form (:func:`~cosci.safety.nominal.intruded`), or
        describes a trial on people with a consent phrase (:func:`~cosci.safety.nominal.trial_described`): then it
        acts as a step asked outright (docs/design.md#safety-screen, "Constructions asked")."""
        terms, consent = self.intent.get("biological"), self.intent.get("human_subjects_without_consent")
        return any((consent is not None and trial_described(window) and bool(consent.spans(window))) or (
            consent is not None and any(intruded(window, phrase, start)
                                        for phrase, start, _ in consent.spans(window))) or (
            terms is not None and any(constructed(window, phrase, start, end)
                                      for phrase, start, end in self.outside_instruments(window, terms.spans(window))))
            for window in windows(normalise(text)))

    def asked_after(self, window: str, step: str, start: int, inside: list[int]) -> bool:
        """Whether a severe step (:attr:`severe`) at ``start`` of a normalised window follows within
        :data:`ASKED_WORDS` words one of the ends ``inside`` of a request opener and its verb (:attr:`asked_inside`),
        with no protective purpose between ("we need to adapt surveillance to H5N1's airborne spread" asks for
        surveillance)."""
        return self.severe is not None and bool(self.severe.search(step)) and any(
            at <= start and len(window[at:start].split()) <= ASKED_WORDS and not self.protective.first(window[at:start])
            for at in inside)

    def reviews(self, window: str, step: str, start: int, end: int) -> bool:
        """Whether the step ``step`` at ``start:end`` of a normalised window is a severe step (:attr:`severe`) whose
        methods are asked for: a methods word (:attr:`methods`) stands at most :data:`METHOD_WORDS` words before
        the step, or at most three after it (verb-final: "提高H5N1在哺乳动物中致死性的各种方法", the various methods of
        raising H5N1's lethality in mammals, as glossed), a verb raising or conferring it (:attr:`raisers`) is in
        the step or the four words before it or between, and no protective purpose or countermeasure stands between
        ("methods to make vaccines against airborne H5N1"). To review, compare or summarise the published ways of
        making an agent more lethal asks for those ways: the object carries the harm, not the verb
        (docs/design.md#safety-screen, "Methods of a severe step"). Not for a therapy whose agent is made stronger
        (:attr:`excused`)."""
        if self.methods is None or self.raisers is None or self.severe is None or not self.severe.search(step) or (
                self.excused is not None and self.excused.search(window)):
            return False
        for m in self.methods.finditer(window):
            if m.end() <= start:
                gap, limit = window[m.end():start], METHOD_WORDS
            elif m.start() >= start:
                gap, limit = window[end:m.start()] if m.start() >= end else "", 3
            else:
                continue
            if (len(gap.split()) > limit and not _WORKED.match(gap)) or self.protective.first(gap) or \
                    self.countermeasures.first(gap):
                continue
            if self.raisers.search(" ".join([*window[:start].split()[-ASKED_WORDS:], step, gap])):
                return True
        return False

    def pressed(self, text: str) -> bool:
        """Whether a window of ``text`` asks outright (:meth:`asks`) for a step no stated purpose excuses
        (:attr:`severe`: an agent made more transmissible, virulent or lethal, airborne, resistant to or escaping a
        countermeasure): "Increase the transmissibility of H5N1 to plan surveillance" asks for the enhancement
        whatever it is said to serve, so the step decides, not the purpose (docs/design.md#safety-screen, "The step
        decides"). Not where the text names a therapy whose agent is the one made stronger (:attr:`excused`: an
        oncolytic virus made more virulent against tumour cells, a biopesticide more lethal to insects)."""
        if self.severe is None or (self.excused is not None and self.excused.search(normalise(text))):
            return False
        return self.asks(text, severe=True)

    def outside_instruments(self, norm: str, spans: list[Span]) -> list[Span]:
        """``spans`` of a normalised text less those inside the name of a treaty or body (``instruments``: "the
        Chemical Weapons Convention" asks for no chemical weapon)."""
        names = self.instruments.spans(norm)
        return [x for x in spans if not any(s <= x[1] and x[2] <= e for _, s, e in names)] if names else spans

    def steps(self, rule: Rule, window: str) -> tuple[list[Span], list[Span]]:
        """The agents ``rule`` names in a normalised window (outside a treaty's name) and, when it names one, its
        harmful steps: enhancement spans that are not part of an agent's own phrase ("low-enriched uranium"), not
        said of a mechanism (:meth:`describes`) and not part of a countermeasure's production
        (:meth:`within_countermeasure`). What a term hit pairs (:meth:`~cosci.safety.prescreen.Prescreen.check`) and
        what :meth:`asks` reads: one reading of a step."""
        named = self.outside_instruments(window, rule.named(window))
        if not named:
            return named, []
        return named, [(step, start, end) for step, start, end in rule.enhancements.spans(window)
                       if not any(a[1] <= start and end <= a[2] for a in named)
                       and not self.describes(window, step, start)
                       and not self.within_countermeasure(window, start, end)]

    def described(self, text: str) -> bool:
        """Whether a window of ``text`` has a resistance step said of a mechanism (:meth:`describes`), or is a
        why-question that asks for no step at all (:meth:`why_only`)."""
        return any(self.why_only(w) or any(self.describes(w, step, start) for rule in self.rules.values()
                                            for step, start, _ in rule.enhancements.spans(w))
                   for w in windows(normalise(text)))

    def why_only(self, window: str) -> bool:
        """Whether a normalised window names an agent in a why-question, wherever the "why" stands in it (a
        sentence ending as a question, the why not its last word, no "how to" or "I want to" around it), and names
        no harmful step of any category, no weapon use and no change put into an agent (``weapon_use``,
        ``engineering``): "why did the 1918 flu cause so many deaths in India" written verb-final ("1918 के फ्लू ने ...
        इतनी मौतें क्यों कीं?", the why after what it asks about) explains a past epidemic; the agent is what is
        explained, so the agent rule does not act. A window naming no agent is left to its score ("... so that everyone
        falls ill and no one understands why?"; docs/design.md#safety-screen, "Why, wherever it stands")."""
        return self.asks_why(window) and \
            any(rule.agents.first(window) for rule in self.rules.values()) and \
            not any(rule.enhancements.first(window) for rule in self.rules.values())

    def asks_why(self, window: str) -> bool:
        """Whether a normalised window is a why-question (a sentence ending as a question, or unmarked with the why
        opening it or before its last four words, :data:`_WHY_UNMARKED`; the why not its last word, no "how to" or
        "I want to" around it) that names no weapon use and puts no change into an agent
        (``weapon_use``, ``engineering``): "why was the typhus epidemic in the Warsaw ghetto so deadly?" explains
        what happened. The rule for a window naming no agent does not act on one (:meth:`why_only` is the agent
        rule's reading; docs/design.md#safety-screen, "Why, wherever it stands")."""
        asks = any((_WHY.search(part) and not _HOW.search(part) and (part.rstrip().endswith(_QUESTION_END) or (
            (m := _WHY_UNMARKED.search(part)) is not None and not _NOT_KNOWN.search(part[:m.start()]))))
                   or asks_how(part, _QUESTION_END, _NOT_KNOWN) for part in cut(window, SENTENCE_END, _CLAUSE))
        return asks and not self.weapon_use.first(window) and not self.engineering.first(window)

    def therapy(self, text: str) -> bool:
        """Whether ``text``'s object is a therapy or a biocontrol agent (``therapies``: a phage, an oncolytic virus, a
        biopesticide's organism) and it names no agent of concern and no weapon use, cover story, concealment or
        enhancement asked for (``weapon_use``): "engineer a lytic phage that spreads through Pseudomonas biofilms"
        asks for a phage's spread, which is the therapy. The rule for a window naming no agent does not act on it,
        since that rule reads no object (docs/design.md#safety-screen, "A therapy's spread")."""
        norm = normalise(text)
        return bool(self.therapies.first(norm)) and not self.weapon_use.first(norm) and \
            not any(rule.agents.first(norm) for rule in self.rules.values())

    def basic_chemistry(self, text: str) -> bool:
        """Whether ``text`` asks for a synthesis or stabilisation (``chemistry``) of an object that is no threat: no
        agent or class word of any category is named, and no people, place or weapon use (``harm_objects``), and no
        cover story, concealment or evasion (``weapon_use``: "a vaccine factory as a front; the steps to produce the
        live agent" is no basic chemistry). The rule for a window naming no agent does not act on it
        (docs/design.md#safety-screen, "Mechanism and object"; a reading that only lifts refusals yields to a cover)."""
        norm = normalise(text)
        asked = self.chemistry.first(norm) or self.countermeasures.first(norm)
        return bool(asked) and not self.harm_objects.first(norm) and not self.weapon_use.first(norm) and not any(
            rule.named(norm) for rule in self.rules.values())

    def purposes(self, text: str) -> list[str]:
        """The protective phrases ``text`` states as the request's purpose (treatment, detection, vaccine,
        training...). Not read as a purpose: a phrase inside an opening cover story ("for a review on threat
        attribution, ..."), inside a harmful step ("escape vaccine-induced immunity") or in a compound that names a
        thing rather than a purpose ("water treatment plant", "teaching lab"; ``not_protective``), because there
        the word says nothing about what the answer would be used for; nor, in a text with a consent hit, the product
        tried on people (``trialled``: "test a vaccine on children without telling their parents"). None at all
        when the text demands working detail (``operational``: "fully operational", "a design that would actually
        work"): a purpose stated next to that demand does not lower what the answer could do
        (docs/design.md#safety-screen)."""
        norm = normalise(text)
        if self.operational.first(norm):
            return []
        consent = self.intent.get("human_subjects_without_consent")  # a trial's product is then no purpose
        tested = self.trialled.spans(norm) if consent is not None and consent.first(norm) else []
        return self._stated(norm, [p for p in self.protective.spans(norm)
                                   if not any(a <= p[1] and p[2] <= b for _, a, b in tested)])

    def _stated(self, norm: str, spans: list[Span]) -> list[str]:
        """The phrases of ``spans`` (in the normalised ``norm``) that are not inside an opening cover story, a
        compound naming a thing (``not_protective``) or a harmful step."""
        cover = self.cover(norm)
        skip = [(0, cover[2])] if cover else []
        skip += [(s, e) for _, s, e in self.not_protective.spans(norm)]
        made = [(s, e) for _, s, e in self.countermeasures.spans(norm)]
        skip += [(s, e) for rule in self.rules.values() for _, s, e in rule.enhancements.spans(norm)
                 if not any(s < b and a < e for a, b in made)]  # a step that makes a countermeasure skips nothing
        return list(dict.fromkeys(span[0] for span in spans if not any(a <= span[1] and span[2] <= b
                                                                          for a, b in skip)))

    def remedies(self, text: str) -> list[str]:
        """The phrases that read ``text``'s request as a countermeasure or oversight (``countermeasures``: a
        vaccine, antivenom, phage or biopesticide produced; ``remedy_terms``: arms-control verification, a treaty,
        safeguards, forensics, decontamination, vaccination, radiation medicine), stated as its purpose
        (:meth:`_stated`); none when the text also asks for a weapon's use, concealment, evasion or an enhancement
        (``weapon_use``) or demands working detail (``operational``)."""
        norm = normalise(text)
        if self.weapon_use.first(norm) or self.operational.first(norm):
            return []
        return self._stated(norm, [*self.countermeasures.spans(norm), *self.remedy_terms.spans(norm)])

    def within_countermeasure(self, norm: str, start: int, end: int) -> bool:
        """Whether the span ``start:end`` of a normalised text lies inside a countermeasure's production phrase
        that names no agent of concern ("increase yield production bakteriofagow": the yield is the phage's, a
        countermeasure's; "produce botulinum toxin for antitoxin" names the toxin, so its step stays one)."""
        return any(s <= start and end <= e and not any(rule.agents.first(norm[s:e]) for rule in self.rules.values())
                   for _, s, e in self.countermeasures.spans(norm))

    def cover(self, norm: str) -> Span | None:
        """The opening cover story of a normalised text ("for my thesis, ...", "i'm drafting a paper on x and want
        ..."), if it opens with one (``framing`` patterns)."""
        span = self.framing.first(norm)
        return span if span and span[1] == 0 else None
