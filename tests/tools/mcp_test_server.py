"""A stdio MCP server for the tests, written with the SDK (``MCPServer``): 30 tools of an imaginary biomedical
service. ``paper_search_by_gene`` answers JSON records with identifiers (the query's words in the title and the
abstract); ``expression_atlas_dump`` answers 5 MB of JSON; ``lab_notes_text`` answers plain text; the others
answer a small JSON object without records. Run: ``python -m tests.tools.mcp_test_server``.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import MCPServer

TOPICS = [
    "protein structure prediction", "gene ontology enrichment", "pathway diagram rendering", "drug target binding",
    "clinical trial registry", "variant pathogenicity score", "single cell clustering", "mass spectrometry peaks",
    "metabolite identification", "chemical compound similarity", "patent family lookup", "species taxonomy",
    "microscopy image segmentation", "sequence alignment", "primer design", "CRISPR guide scoring",
    "antibody numbering", "cohort survival curves", "adverse event reports", "enzyme kinetics fitting",
    "phylogenetic tree building", "promoter motif scanning", "copy number calling", "methylation arrays",
    "protein interaction network", "cell line authentication", "reagent catalogue",
]
"""27 tools answering a JSON object without records; with the three below, 30."""
server = MCPServer("cosci-test-biomed")


def _plain(topic: str) -> None:
    name = topic.lower().replace(" ", "_")

    def answer(query: str) -> str:
        return json.dumps({"topic": topic, "query": query, "rows": 0})

    server.add_tool(answer, name=name, description=f"Run the {topic} service on a query.")


for _topic in TOPICS:
    _plain(_topic)


def paper_search_by_gene(query: str) -> str:
    words = " ".join(query.split()[:6])
    return json.dumps({"results": [
        {"title": f"A study of {words} in leukemia stem cells", "doi": "10.5555/mcp.test.1", "pmid": "39990001",
         "abstract": f"We report that {words} reduced colony formation of leukemia stem cells by 40 percent.",
         "year": 2024, "journal": "Test Journal of Hematology"},
        {"title": "An entry without any identifier", "abstract": "No identifier, so no citable record."}]})


def expression_atlas_dump(query: str) -> str:
    return json.dumps({"rows": ["x" * 1000] * 5000})


def lab_notes_text(query: str) -> str:
    return f"Notes about {query}: nothing structured here."


server.add_tool(paper_search_by_gene, name="paper_search_by_gene", description="Find published papers that name a "
                "gene or a drug: returns records with title, abstract, DOI and PMID.")
server.add_tool(expression_atlas_dump, name="expression_atlas_dump",
                description="Dump the whole expression atlas of a tissue.")
server.add_tool(lab_notes_text, name="lab_notes_text", description="Return the lab notes about a topic as plain text.")

if __name__ == "__main__":
    server.run()
