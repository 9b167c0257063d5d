"""Analysis above the algorithms: the instance lower bound, campaign planning and the top-k metrics."""
