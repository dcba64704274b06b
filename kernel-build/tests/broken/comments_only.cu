// Only comments, no kernel.
/* nothing here */
