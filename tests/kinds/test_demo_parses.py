"""The demo's parse cache: a parse is made once per model, version and input, then read back."""
from __future__ import annotations

from campaign.demo_parses import ParseCache


def test_a_second_call_reads_the_cache_without_loading_or_parsing(tmp_path):
    loads, parses = [], []

    def loader(model):
        loads.append(model)
        return f"pipeline {model}"

    def parse(nlp):
        parses.append(nlp)
        return f"# parsed by {nlp}\n"

    versions = {"m": "1.0"}
    cache = ParseCache(tmp_path, loader=loader, version=lambda m: versions[m])
    assert cache.conllu("m", "forms", "a b c", parse) == "# parsed by pipeline m\n"
    assert cache.conllu("m", "forms", "a b c", parse) == "# parsed by pipeline m\n"
    assert loads == ["m"] and parses == ["pipeline m"]

    # a new object (the next demo load) reads the file: nothing is loaded or parsed
    again = ParseCache(tmp_path, loader=loader, version=lambda m: versions[m])
    assert again.conllu("m", "forms", "a b c", parse) == "# parsed by pipeline m\n"
    assert loads == ["m"] and len(parses) == 1 and again.parsed == []

    # another input, mode or model version is parsed again (the model is loaded once per object)
    cache.conllu("m", "forms", "a b d", parse)
    cache.conllu("m", "raw", "a b c", parse)
    versions["m"] = "1.1"
    cache.conllu("m", "forms", "a b c", parse)
    assert len(parses) == 4 and loads == ["m"]
    assert sorted(p.name.split("-")[1] for p in tmp_path.glob("*.conllu")) == ["1.0", "1.0", "1.0", "1.1"]
    assert not list(tmp_path.glob("*.partial"))
