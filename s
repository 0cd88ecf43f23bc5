echo $x $y $z
