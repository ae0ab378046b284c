"""The ingestion pipeline's stages (DESIGN section 15), one module each, so that each can be read
and tested alone: `extract` turns a file's bytes into text, `chunk` splits text for embedding."""
