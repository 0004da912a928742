nme = "typo"
