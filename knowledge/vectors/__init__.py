"""The knowledge base's vector store (DESIGN section 15; docs/ingestion.md, "Vector store").

Every operation is keyword-only and takes the tenant first: the tenant is the namespace, and no
operation reads or removes another tenant's rows. Writes are ORM code shared by both databases; the
one vendor-dependent step, ranking chunks by cosine similarity, is `ranking.nearest`."""
