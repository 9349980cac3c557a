"""A design made and quoted: recommending, expanding and fetching stored designs
(recommendations), and the quote laid on top (quote: versions, terms, customer prices)."""
