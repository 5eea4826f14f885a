# Assembles the WonderSwan ROM with the checksum its header ends with (cmake -P): nasm once
# with the checksum 0, the 16-bit sum of every byte but the last two, nasm again with that sum
# (-DROM_CHECKSUM), and a check that the image now ends with it.
#
#   cmake -DNASM=<nasm> -DSOURCE=<.asm> -DOUTPUT=<.ws> -DWORK=<dir> -P assemble.cmake

foreach(var NASM SOURCE OUTPUT WORK)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "assemble.cmake needs -D${var}=...")
    endif()
endforeach()

function(assemble output checksum)
    execute_process(
        COMMAND ${NASM} -f bin -w+all -w+error -DROM_CHECKSUM=${checksum}
                -l ${WORK}/framelock_test.lst -o ${output} ${SOURCE}
        RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "nasm failed on ${SOURCE}")
    endif()
endfunction()

# sum_bytes(<file> <var>): the 16-bit sum of the file's bytes but its last two, and those two
# as a number (little-endian) in <var>_stored.
function(sum_bytes file var)
    file(READ ${file} hex HEX)
    string(LENGTH "${hex}" digits)
    math(EXPR summed "${digits} - 4")
    string(SUBSTRING "${hex}" ${summed} 4 stored)
    string(SUBSTRING "${hex}" 0 ${summed} hex)
    set(sum 0)
    # 512 bytes an expression: one math() call per chunk keeps this under a second.
    set(chunk 1024)
    set(offset 0)
    while(offset LESS summed)
        string(SUBSTRING "${hex}" ${offset} ${chunk} part)
        string(REGEX REPLACE "(..)" "+0x\\1" terms "${part}")
        math(EXPR sum "(${sum}${terms}) & 0xFFFF")
        math(EXPR offset "${offset} + ${chunk}")
    endwhile()
    string(SUBSTRING "${stored}" 0 2 low)
    string(SUBSTRING "${stored}" 2 2 high)
    math(EXPR stored "0x${high}${low}")
    set(${var} ${sum} PARENT_SCOPE)
    set(${var}_stored ${stored} PARENT_SCOPE)
endfunction()

set(first ${WORK}/framelock_test.unsummed.ws)
assemble(${first} 0)
sum_bytes(${first} sum)
file(REMOVE ${first})

assemble(${OUTPUT} ${sum})
sum_bytes(${OUTPUT} check)
if(NOT check EQUAL sum OR NOT check_stored EQUAL sum)
    message(FATAL_ERROR "${OUTPUT}: header checksum ${check_stored}, bytes sum to ${check}")
endif()
